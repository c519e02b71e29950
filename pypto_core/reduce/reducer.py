"""The reducer: shrink a program while a failure persists (`pypto reduce`; mlir-reduce, llvm-reduce and
C-Reduce are the models).

A *test* prints a candidate (strategies.py), parses the text back (never executing it) and runs the
pipeline on that program; the candidate is *interesting* when the run fails the same way -- an error whose
message holds a given substring, or a check-run mismatch. The search is greedy: the strategies are tried
in order, the first interesting candidate that is smaller (fewer statements, then smaller integers,
then shorter text) replaces the program, and rounds repeat until no strategy finds one or the test
budget is spent. Texts already tested are not tested again.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pypto_core.ir import function as F
from pypto_core.reduce.strategies import STRATEGIES, Candidate, Strategy, count_statements


def failure_text(exc: BaseException) -> str:
    """Everything a `--until` substring may match: the message, the exception type, its causes."""
    parts: list[str] = []
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        parts.append(f"{type(current).__name__}: {current}")
        current = current.__cause__ or current.__context__
    return "\n".join(parts)


@dataclass
class Outcome:
    interesting: bool
    detail: str  # what happened, for messages: the failure's first line, or "no failure"


@dataclass
class FailureOracle:
    """Runs `passes` on a program and says whether it fails as wanted.

    `until`: a substring of the failure's message (or of its causes'); `mismatch`: the failure must be a
    check-run mismatch (the pipeline then runs with verify = "check-run"). A program the pipeline rejects
    before any pass runs (its input verification) is never interesting."""

    passes: Sequence[Any]
    backend: str | None = None
    verify: str = "basic"
    until: str | None = None
    mismatch: bool = False

    def __post_init__(self) -> None:
        if not self.until and not self.mismatch:
            raise ValueError("say which failure to keep: a message substring (until) or mismatch=True")
        if self.mismatch:
            self.verify = "check-run"

    def run(self, program: F.Program) -> Outcome:
        from pypto_core.passes.manager import InputVerificationError, PassManager

        try:
            PassManager(list(self.passes), backend=self.backend, verify=self.verify).run(program)  # type: ignore[arg-type]
        except InputVerificationError as exc:
            return Outcome(False, f"the input is rejected: {_first_line(str(exc))}")
        except Exception as exc:  # noqa: BLE001 - any failure may be the one being reduced
            text = failure_text(exc)
            if self.mismatch and not _is_mismatch(exc):
                return Outcome(False, _first_line(text))
            if self.until and self.until not in text:
                return Outcome(False, _first_line(text))
            return Outcome(True, _first_line(text))
        return Outcome(False, "no failure")

    def __call__(self, program: F.Program) -> bool:
        return self.run(program).interesting


def _is_mismatch(exc: BaseException) -> bool:
    try:
        from pypto_core.interp.errors import PassCheckRunError
    except ImportError:  # pragma: no cover
        return False
    return isinstance(exc, PassCheckRunError)


def _first_line(text: str) -> str:
    return (text.strip().splitlines() or [""])[0]


_INTS = re.compile(r"(?<![\w.])\d+(?![\w.])")


def program_size(program: F.Program, text: str) -> tuple[int, int, int]:
    """(statements, sum of the integers written, characters): what the reducer makes smaller."""
    return count_statements(program), sum(int(m) for m in _INTS.findall(text)), len(text)


@dataclass
class Progress:
    """What `on_progress` is told after each test."""

    tests: int
    accepted: int
    strategy: str
    statements: int
    initial_statements: int
    last_change: str = ""
    seconds: float = 0.0


@dataclass
class ReduceResult:
    program: F.Program
    text: str
    initial_text: str
    tests: int
    steps: list[str] = field(default_factory=list)  # the accepted changes, in order
    exhausted: bool = False  # stopped by the test budget, not because nothing smaller fails

    @property
    def initial_lines(self) -> int:
        return len(self.initial_text.splitlines())

    @property
    def lines(self) -> int:
        return len(self.text.splitlines())


class NotInteresting(ValueError):
    """The program given to the reducer does not fail the way asked."""


def reduce_program(program: F.Program, oracle: Callable[[F.Program], bool], *,
                   strategies: Sequence[tuple[str, Strategy]] = STRATEGIES, max_tests: int = 5000,
                   on_progress: Callable[[Progress], None] | None = None) -> ReduceResult:
    """The smallest program found that `oracle` still finds interesting (module docstring)."""
    from pypto_core.language.api import parse

    text = program.as_python()
    program = _reparse(text)
    if isinstance(oracle, FailureOracle):
        outcome = oracle.run(program)
        fails, detail = outcome.interesting, outcome.detail
    else:
        fails, detail = oracle(program), ""
    if not fails:
        raise NotInteresting(f"the program does not fail as asked ({detail or 'no failure'})")
    best_size = program_size(program, text)
    initial_text, initial_statements = text, best_size[0]
    tested: set[str] = {text}
    tests = 0
    steps: list[str] = []
    started = time.perf_counter()

    def tell(strategy: str, change: str = "") -> None:
        if on_progress is not None:
            on_progress(Progress(tests, len(steps), strategy, best_size[0], initial_statements, change,
                                 time.perf_counter() - started))

    progress = True
    while progress and tests < max_tests:
        progress = False
        for name, strategy in strategies:
            restart = True
            while restart and tests < max_tests:
                restart = False
                for cand in strategy(program):
                    candidate = _materialise(cand, parse)
                    if candidate is None:
                        continue
                    cand_program, cand_text = candidate
                    if cand_text in tested:
                        continue
                    tested.add(cand_text)
                    size = program_size(cand_program, cand_text)
                    if size >= best_size:
                        continue
                    tests += 1
                    interesting = oracle(cand_program)
                    if interesting:
                        program, text, best_size = cand_program, cand_text, size
                        steps.append(cand.description)
                        progress = restart = True
                    tell(name, cand.description if interesting else "")
                    if restart or tests >= max_tests:
                        break
    return ReduceResult(program, text, initial_text, tests, steps, exhausted=tests >= max_tests)


def _reparse(text: str) -> F.Program:
    from pypto_core.ir.function import as_program
    from pypto_core.language.api import parse

    return as_program(parse(text, "<reduce>"))


def _materialise(cand: Candidate, parse: Any) -> tuple[F.Program, str] | None:
    """The candidate as (program parsed from its text, text): None when it does not print or parse."""
    from pypto_core.ir.function import as_program

    try:
        text = cand.text if cand.text is not None else cand.program.as_python()  # type: ignore[union-attr]
        program = as_program(parse(text, "<reduce>"))
        return program, program.as_python()
    except Exception:  # noqa: BLE001 - an invalid candidate is simply not one
        return None

"""The fuzz oracle: what every input text must do.

`check_text(text)` never executes the text: it parses it with `pypto_core.language.api.parse` (an AST walk)
and then, for an accepted program, runs the `default` pipeline under `verify = "check-run"` with the
round-trip instrument. The promises it checks:

1. parsing gives a Function / Program or a `ValueError` whose message carries a location
   (`--> file:line:col`); any other exception type, an unlocated ValueError or a hang is a finding;
2. an accepted program prints and parses back to a structurally equal program (before any pass);
3. the pipeline either compiles it or rejects it with a `ValueError`; an `InternalError`, any other
   exception, a hang, a round-trip failure after a pass (`[RoundtripInstrument]`), a verifier failure
   blamed on a pass, or a check-run mismatch (outputs differ before / after a pass) is a finding.

A program the pipeline rejects before the first pass because it is not well formed
(`InputVerificationError`) or cannot run on the reference machine as written (`CheckRunError` wrapping a
located `MachineError`) is counted as a rejection of the input, not as a finding: both are the program's
fault and say where.

The pipeline runs with the reference machine's loop bound lowered to FUZZ_MAX_ITERATIONS (the users' default
is 1,000,000, docs/limits.md): a mutated loop that never ends then reaches its located error in about a
second rather than after the 10 s timeout, and generated loops make a few hundred
iterations at most.

Each finding has a signature `(exception type, first line of the message with numbers and quoted names
normalised, pass)` used to deduplicate findings and to match the `KNOWN` list of the test module.
"""

from __future__ import annotations

import os
import re
import signal
import threading
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache
from typing import Any

FILENAME = "fuzz_input.py"
DEFAULT_TIMEOUT = 10.0
FUZZ_MAX_ITERATIONS = 100_000
BACKENDS = ("Ascend910B", "Ascend950")
_LOCATED = re.compile(r"--> .+:\d+:\d+")


class FuzzTimeout(BaseException):
    """Raised by the alarm inside the compiler: a BaseException so that no `except Exception` swallows it."""


@dataclass(frozen=True)
class Finding:
    """One broken promise."""

    promise: str  # which promise: parse-crash, parse-unlocated, hang, input-roundtrip, pass-crash, ...
    exc_type: str
    message: str
    pass_name: str = ""

    @property
    def first_line(self) -> str:
        return (self.message.strip().splitlines() or [""])[0]

    @property
    def key_line(self) -> str:
        """The first line that says what broke: a verifier report's `Message:` line, the wrapped error of an
        InternalError raised around a pass, else the first line."""
        for line in self.message.splitlines():
            if line.strip().startswith("Message: "):
                return line.strip()[len("Message: "):]
        first = self.first_line
        if ") failed: " in first:
            return first.split(") failed: ", 1)[1]
        return first

    @property
    def signature(self) -> tuple[str, str, str]:
        return (self.exc_type, normalise(self.key_line), self.pass_name)

    def describe(self) -> str:
        where = f" after/in pass {self.pass_name}" if self.pass_name else ""
        return f"[{self.promise}] {self.exc_type}{where}: {self.first_line}"


@dataclass
class Outcome:
    """What happened to one input."""

    status: str  # "parse-rejected" | "pipeline-rejected" | "input-rejected" | "compiled" | "finding"
    finding: Finding | None = None
    detail: str = ""
    passes_run: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.finding is None


def normalise(line: str) -> str:
    """A message line with the parts that vary between reproducers of one defect blanked out."""
    line = re.sub(r"'[^']*'", "'_'", line)
    line = re.sub(r'"[^"]*"', '"_"', line)
    line = re.sub(r"\b[A-Za-z_]\w*__(ssa|iter|rv|phi|idx|tmp|store|out|tile)_?\w*", "V", line)
    line = re.sub(r"\d+", "N", line)
    return line[:200]


@contextmanager
def machine_loop_bound(iterations: int) -> Iterator[None]:
    """PYPTO_MACHINE_MAX_ITERATIONS for the duration (unless the caller set it), restored afterwards."""
    name = "PYPTO_MACHINE_MAX_ITERATIONS"
    if name in os.environ:
        yield
        return
    os.environ[name] = str(iterations)
    try:
        yield
    finally:
        os.environ.pop(name, None)


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise FuzzTimeout in the main thread after `seconds` (no limit off the main thread)."""
    if seconds <= 0 or threading.current_thread() is not threading.main_thread():
        yield
        return

    def _fire(signum: int, frame: Any) -> None:
        raise FuzzTimeout(f"no answer within {seconds:g} s")

    old = signal.signal(signal.SIGALRM, _fire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def is_located(exc: BaseException) -> bool:
    return bool(_LOCATED.search(str(exc)))


@cache
def default_pipeline(backend: str) -> Any:
    """The `default` preset as `pypto.toml` resolves it, checked with the reference machine after every
    pass (verify = "check-run") and printed / re-parsed after every pass (round-trip instrument)."""
    from pypto_core.config import parse_config_text, resolve_config
    from pypto_core.passes.instruments.roundtrip import make_roundtrip_instrument
    from pypto_core.passes.manager import PassManager

    loaded = parse_config_text(f'backend = "{backend}"\nverify = "check-run"\n[pipeline]\npasses = ["default"]\n',
                               "<fuzz>")
    resolved = resolve_config(loaded)
    return PassManager(resolved.passes, backend=resolved.backend, verify="check-run",
                       instruments=[make_roundtrip_instrument()])


class _PassTracker:
    """An instrument that only remembers which pass is running."""

    name = "FuzzPassTracker"

    def __init__(self) -> None:
        self.current = ""
        self.seen: list[str] = []

    def before_pass(self, p: Any, program: Any) -> None:
        self.current = str(p.get_name())
        self.seen.append(self.current)

    def after_pass(self, p: Any, program: Any) -> None:
        pass


def _pass_from_message(message: str) -> str:
    m = re.search(r"after pass '([^']+)'", message) or re.search(r"pass '([^']+)'", message)
    return m.group(1) if m else ""


def parse_only(text: str, filename: str = FILENAME, timeout: float = DEFAULT_TIMEOUT) -> tuple[Any, Finding | None]:
    """(program or None, finding or None) for the parse step alone; a located ValueError gives (None, None)."""
    from pypto_core.language.api import parse

    try:
        with time_limit(timeout), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return parse(text, filename), None
    except FuzzTimeout as exc:
        return None, Finding("hang", "Timeout", f"parse: {exc}")
    except ValueError as exc:
        if is_located(exc):
            return None, None
        return None, Finding("parse-unlocated", type(exc).__name__, str(exc) or repr(exc))
    except Exception as exc:  # noqa: BLE001 - any other exception type is the finding
        return None, Finding("parse-crash", type(exc).__name__, str(exc) or repr(exc))


def check_roundtrip_of_input(program: Any, timeout: float = DEFAULT_TIMEOUT) -> Finding | None:
    """Promise 2: the parsed program prints and parses back to an equal program."""
    from pypto_core.ir.structural import assert_structural_equal
    from pypto_core.language.api import parse
    from pypto_core.language.printer import python_print

    stage = "print"
    try:
        with time_limit(timeout), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            printed = python_print(program, format=False)
            stage = "re-parse"
            again = parse(printed, "<fuzz roundtrip>")
            stage = "compare"
            assert_structural_equal(program, again)
    except FuzzTimeout as exc:
        return Finding("hang", "Timeout", f"input round trip ({stage}): {exc}")
    except Exception as exc:  # noqa: BLE001
        return Finding("input-roundtrip", type(exc).__name__, f"input round trip, {stage} failed: {exc}")
    return None


def check_pipeline(program: Any, backend: str = "Ascend910B", timeout: float = DEFAULT_TIMEOUT) -> Outcome:
    """Promise 3: the default pipeline under check-run + round trip compiles the program or rejects it with
    a ValueError."""
    from pypto_core.errors import InternalError
    from pypto_core.interp.errors import CheckRunError, MachineError, PassCheckRunError
    from pypto_core.ir.function import Program
    from pypto_core.passes.context import PassContext
    from pypto_core.passes.manager import InputVerificationError, PassVerificationError

    if not isinstance(program, Program):
        return Outcome("pipeline-rejected", detail="a bare Function: the pipeline takes programs")
    tracker = _PassTracker()
    pm = default_pipeline(backend)
    try:
        with time_limit(timeout), machine_loop_bound(FUZZ_MAX_ITERATIONS), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with PassContext([tracker]):
                pm.run(program)
    except FuzzTimeout as exc:
        return Outcome("finding", Finding("hang", "Timeout", f"pipeline: {exc}", tracker.current),
                       passes_run=tracker.seen)
    except PassCheckRunError as exc:
        promise = "mismatch" if "changed what the program computes" in str(exc) else "miscompile-no-run"
        return Outcome("finding", Finding(promise, type(exc).__name__, str(exc), exc.pass_name),
                       passes_run=tracker.seen)
    except CheckRunError as exc:
        cause = exc.__cause__
        if isinstance(cause, MachineError) and len(tracker.seen) <= 1:
            return Outcome("input-rejected", detail=str(exc), passes_run=tracker.seen)
        return Outcome("finding", Finding("check-run", type(exc).__name__, str(exc), tracker.current),
                       passes_run=tracker.seen)
    except InputVerificationError as exc:
        return Outcome("input-rejected", detail=str(exc), passes_run=tracker.seen)
    except PassVerificationError as exc:
        return Outcome("finding", Finding("verifier", type(exc).__name__, str(exc), exc.pass_label),
                       passes_run=tracker.seen)
    except ValueError as exc:
        return Outcome("pipeline-rejected", detail=str(exc), passes_run=tracker.seen)
    except InternalError as exc:
        if "[RoundtripInstrument]" in str(exc):
            return Outcome("finding", Finding("roundtrip", type(exc).__name__, str(exc),
                                              _pass_from_message(str(exc).split("[RoundtripInstrument]", 1)[1])),
                           passes_run=tracker.seen)
        return Outcome("finding", Finding("internal-error", type(exc).__name__, str(exc),
                                          tracker.current or _pass_from_message(str(exc))),
                       passes_run=tracker.seen)
    except RuntimeError as exc:
        promise = "roundtrip" if "[RoundtripInstrument]" in str(exc) else "pass-crash"
        return Outcome("finding", Finding(promise, type(exc).__name__, str(exc),
                                          _pass_from_message(str(exc)) or tracker.current),
                       passes_run=tracker.seen)
    except Exception as exc:  # noqa: BLE001
        return Outcome("finding", Finding("pass-crash", type(exc).__name__, str(exc) or repr(exc), tracker.current),
                       passes_run=tracker.seen)
    return Outcome("compiled", passes_run=tracker.seen)


def check_text(text: str, backend: str = "Ascend910B", timeout: float = DEFAULT_TIMEOUT,
               filename: str = FILENAME, pipeline: bool = True) -> Outcome:
    """Every promise for one input text."""
    program, finding = parse_only(text, filename, timeout)
    if finding is not None:
        return Outcome("finding", finding)
    if program is None:
        return Outcome("parse-rejected")
    finding = check_roundtrip_of_input(program, timeout)
    if finding is not None:
        return Outcome("finding", finding)
    if not pipeline:
        return Outcome("compiled")
    return check_pipeline(program, backend, timeout)

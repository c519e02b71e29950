"""The PassManager: runs a configured pipeline (docs/architecture.md, properties and verifiers).

1. verifies the input's structural properties, and the source contracts the pipeline uses (unless
   verify = "none");
2. checks the pipeline statically (static_check.py) against that input;
3. runs each pass inside a PassContext carrying the backend and the instruments;
4. after each pass verifies what the pass produced, the structural properties and what the next
   pass requires -- whatever should hold there and has a verifier -- so a failure names the pass
   after which the IR broke.

A source contract is a property whose verifier declares `source_contract = True`: it states what the
program as written must satisfy (AivSplitValid: what a `pl.split_aiv` region may hold, docs/passes/lower_auto_vector_split.md), so a
finding on the input is the program's fault, not a pass's. The input is verified for every source
contract a pass of the pipeline requires, produces or invalidates, with the structural properties;
otherwise the first check would come after a pass and blame it.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, TextIO

from pypto_core.errors import InternalError, VerificationError
from pypto_core.ir.function import as_program
from pypto_core.passes.context import PassContext
from pypto_core.passes.instruments.check_run import load_check_run_instrument
from pypto_core.passes.instruments.dump import pass_label
from pypto_core.passes.instruments.roundtrip import make_roundtrip_instrument
from pypto_core.passes.instruments.timing import TimingInstrument
from pypto_core.passes.property_sets import STRUCTURAL
from pypto_core.passes.static_check import PipelineAnalysis, check_pipeline, program_input
from pypto_core.passes.verification_level import VerificationLevel
from pypto_core.passes.verifier_registry import DiagnosticSeverity, PropertyVerifierRegistry, property_info

VerifyMode = Literal["none", "basic", "roundtrip", "check-run"]
VERIFY_MODES: tuple[str, ...] = ("none", "basic", "roundtrip", "check-run")


class InputVerificationError(VerificationError):
    """The program given to the pipeline violates a structural property or a source contract: the
    user's to fix."""


class PassVerificationError(VerificationError):
    """A pass left IR that violates a property it should hold: a bug in that pass."""

    def __init__(self, message: str, pass_label: str, owner: str) -> None:
        super().__init__(message)
        self.pass_label = pass_label
        self.owner = owner


def pass_origin(p: Any) -> tuple[str, str]:
    """(plugin, distribution) that registered the pass's class, for messages."""
    from pypto_core.passes.registry import PASSES
    from pypto_core.plugins.host import plugin_host

    owner = PASSES.owner(getattr(p, "factory_name", "")) or "<unregistered>"
    return owner, plugin_host().distribution_of(owner)


def _verifiable(props: set[str]) -> list[str]:
    return sorted(p for p in props if PropertyVerifierRegistry.has_verifier(p))


def _errors(props: Sequence[str], program: Any) -> list[Any]:
    if not props:
        return []
    return [d for d in PropertyVerifierRegistry.verify(list(props), program)
            if d.severity is DiagnosticSeverity.Error]


def is_source_contract(prop: str) -> bool:
    """The property's verifier says it is a contract on the program as written (module docstring)."""
    info = property_info(prop)
    return info is not None and bool(getattr(info.verifier, "source_contract", False))


def _source_contracts(passes: Sequence[Any]) -> set[str]:
    """The source contracts some pass of the pipeline requires, produces or invalidates."""
    used: set[str] = set()
    for p in passes:
        for props in (p.get_required_properties(), p.get_produced_properties(), p.get_invalidated_properties()):
            used.update(str(x) for x in props)
    return {prop for prop in used if is_source_contract(prop)}


@dataclass
class FailedStep:
    """Where a run failed: the step, its pass, the program the pass was given, and the manager (its
    passes, backend and verification level), for the crash reproducer (`failed_step(exc)`)."""

    step: int
    pass_: Any
    program: Any
    manager: PassManager

    @property
    def remaining_passes(self) -> list[Any]:
        return self.manager.passes[self.step:]


_FAILED_STEP_ATTR = "_pypto_failed_step"


def _note_failed_step(exc: BaseException, failed: FailedStep) -> None:
    if getattr(exc, _FAILED_STEP_ATTR, None) is None:  # the innermost manager knows the failing pass
        try:
            setattr(exc, _FAILED_STEP_ATTR, failed)
        except (AttributeError, TypeError):  # an exception type that takes no attributes
            pass


def failed_step(exc: BaseException) -> FailedStep | None:
    """The step of the PassManager run that raised `exc`, when a pass (or the checks after it) raised it."""
    return getattr(exc, _FAILED_STEP_ATTR, None)


class PassManager:
    def __init__(self, passes: Sequence[Any], *, backend: str | None = None, verify: VerifyMode = "basic",
                 instruments: Sequence[Any] = (), timing: bool = False, timing_stream: TextIO | None = None) -> None:
        if verify not in VERIFY_MODES:
            raise ValueError(f"unknown verification mode '{verify}' (one of {', '.join(VERIFY_MODES)})")
        self.passes = list(passes)
        self.backend = backend
        self.verify = verify
        self.instruments = list(instruments)
        self.timing = TimingInstrument() if timing else None
        self.timing_stream = timing_stream

    def get_pass_names(self) -> list[str]:
        return [p.get_name() for p in self.passes]

    # -- checks --------------------------------------------------------------------------------
    def check(self, program: Any = None) -> PipelineAnalysis:
        """The static check; with a program, properties the input must have are verified on it."""
        if program is None:
            return check_pipeline(self.passes)
        return check_pipeline(self.passes, program_input(program))

    def _verify_input(self, program: Any) -> None:
        errors = _errors(_verifiable(set(STRUCTURAL) | _source_contracts(self.passes)), program)
        if errors:
            raise InputVerificationError("the input program is not well formed:\n"
                                         + PropertyVerifierRegistry.generate_report(errors))

    def _verify_after(self, step: int, program: Any, analysis: PipelineAnalysis, given: Any = None) -> None:
        p = self.passes[step]
        wanted = {str(x) for x in p.get_produced_properties()} | set(STRUCTURAL)
        if step + 1 < len(self.passes):
            wanted |= {str(x) for x in self.passes[step + 1].get_required_properties()}
        props = _verifiable(wanted & analysis.held_after[step])
        errors = _errors(props, program)
        if errors:
            label = pass_label(p)
            broken = sorted({d.rule_name for d in errors})
            before = _errors(broken, given) if given is not None else []
            kept = bool(before) and {(d.rule_name, d.message) for d in errors} <= {(d.rule_name, d.message)
                                                                                 for d in before}
            blame = ("The program already had these findings before the pass: fix the program as they say, or, "
                     "if it is valid, the pass does not establish the property it declares."
                     if kept else "This is a bug in that pass.")
            owner, dist = pass_origin(p)
            raise PassVerificationError(
                f"IR verification failed after pass '{label}' ({p.get_name()}, step {step + 1}, from plugin "
                f"'{owner}' / {dist}): {', '.join(broken)} should hold but does not. {blame}\n"
                + PropertyVerifierRegistry.generate_report(errors), label, owner)

    # -- running -------------------------------------------------------------------------------
    def _context_instruments(self) -> list[Any]:
        outer = PassContext.current()
        instruments = (outer.get_instruments() if outer is not None else []) + self.instruments
        if self.verify == "roundtrip":
            instruments.append(make_roundtrip_instrument())
        if self.verify == "check-run":
            instruments.append(load_check_run_instrument())
        if self.timing is not None:
            instruments.append(self.timing)
        return instruments

    def _run_one(self, p: Any, program: Any) -> Any:
        try:
            return p(program)
        except (ValueError, VerificationError, InternalError):
            raise  # a rejected program, or an error that already says what broke
        except Exception as exc:
            owner, dist = pass_origin(p)
            raise InternalError(f"pass '{pass_label(p)}' ({p.get_name()}, from plugin '{owner}' / {dist}) "
                                f"failed: {type(exc).__name__}: {exc}") from exc

    def run(self, program: Any) -> Any:
        program = as_program(program)
        checking = self.verify != "none"
        if checking:
            self._verify_input(program)
        analysis = self.check(program)
        level = VerificationLevel.NONE if not checking else (
            VerificationLevel.ROUNDTRIP if self.verify == "roundtrip" else VerificationLevel.BASIC)
        with PassContext(self._context_instruments(), level, backend=self.backend):
            for step, p in enumerate(self.passes):
                given = program
                try:
                    program = self._run_one(p, given)
                    if checking:
                        self._verify_after(step, program, analysis, given)
                except Exception as exc:
                    _note_failed_step(exc, FailedStep(step, p, given, self))
                    raise
        if self.timing is not None:
            from rich.console import Console

            Console(file=self.timing_stream or sys.stderr).print(self.timing.table())
        return program

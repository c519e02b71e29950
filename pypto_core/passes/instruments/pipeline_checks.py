"""Checks a pipeline run makes between its steps (docs/architecture.md, the pass manager).

A `PipelineInstrument` sees the whole pipeline: `enter(passes, program)` before the first pass and
`after_step(step, pass, given, result)` after each pass of the pipeline (never for a pass that a pass
runs itself). The run loop (pypto_core/passes/runner.py) calls them; which ones a run uses is decided
in one place (instruments/assemble.py) from its verification level.

* `PipelineVerification` (PassManager: `pypto compile`, `pypto run`): the input is verified for its
  structural properties and the source contracts the pipeline uses, the pipeline is checked statically,
  and after each pass whatever should hold there and has a verifier is verified, so a failure names the
  pass after which the IR broke, and whether the input already had the finding.
* `VerifiedSetVerification` (PyPTO's `PassPipeline`): the structural properties on the input, then after
  each pass the properties it produced that are in PyPTO's verified set and not verified since, with
  PyPTO's messages.
* `RoundtripCheck`: print -> parse -> structural equality after each pass.

A source contract is a property whose verifier declares `source_contract = True`: it states what the
program as written must satisfy (AivSplitValid: what a `pl.split_aiv` region may hold), so a finding on
the input is the program's fault, not a pass's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pypto_core.errors import VerificationError
from pypto_core.passes.naming import pass_label, pass_origin
from pypto_core.passes.property_sets import STRUCTURAL, get_structural_properties, get_verified_properties
from pypto_core.passes.static_check import PipelineAnalysis, check_pipeline, program_input
from pypto_core.passes.verifier_registry import (
    PropertyVerifierRegistry,
    error_findings,
    property_info,
    verify_or_raise,
)


class InputVerificationError(VerificationError):
    """The program given to the pipeline violates a structural property or a source contract: the
    user's to fix."""


class PassVerificationError(VerificationError):
    """A pass left IR that violates a property it should hold: a bug in that pass."""

    def __init__(self, message: str, pass_label: str, owner: str) -> None:
        super().__init__(message)
        self.pass_label = pass_label
        self.owner = owner


class PipelineInstrument:
    """Hooks around a whole pipeline run; subclasses override the ones they need."""

    timing_label = "verification"  # the `--timing` row its hooks' time is added to

    def enter(self, passes: Sequence[Any], program: Any) -> None:
        """Before the first pass, with the pipeline and its input."""

    def after_step(self, step: int, p: Any, given: Any, result: Any) -> None:
        """After pass `step` (0-based) of the pipeline returned `result` for `given`."""


def verifiable(props: set[str]) -> list[str]:
    return sorted(p for p in props if PropertyVerifierRegistry.has_verifier(p))


def is_source_contract(prop: str) -> bool:
    """The property's verifier says it is a contract on the program as written (module docstring)."""
    info = property_info(prop)
    return info is not None and bool(getattr(info.verifier, "source_contract", False))


def source_contracts(passes: Sequence[Any]) -> set[str]:
    """The source contracts some pass of the pipeline requires, produces or invalidates."""
    used: set[str] = set()
    for p in passes:
        for props in (p.get_required_properties(), p.get_produced_properties(), p.get_invalidated_properties()):
            used.update(str(x) for x in props)
    return {prop for prop in used if is_source_contract(prop)}


def properties_after(passes: Sequence[Any], analysis: PipelineAnalysis, step: int) -> list[str]:
    """What PipelineVerification verifies after pass `step`: what it produced, the structural properties and
    what the next pass requires, where they hold and have a verifier."""
    wanted = {str(x) for x in passes[step].get_produced_properties()} | set(STRUCTURAL)
    if step + 1 < len(passes):
        wanted |= {str(x) for x in passes[step + 1].get_required_properties()}
    held = analysis.held_after[step] if step < len(analysis.held_after) else set()
    return verifiable(wanted & held)


class PipelineVerification(PipelineInstrument):
    """The PassManager's property checks (module docstring)."""

    def __init__(self, verify_properties: bool = True) -> None:
        # False (verification level `none`): only the static check, which no run may skip.
        self.verify_properties = verify_properties
        self.passes: list[Any] = []
        self.analysis = PipelineAnalysis()
        # The program last verified and the properties found to hold on it: IR is immutable, so a pass that
        # returns its input unchanged (most do, on most programs) needs only the properties not yet verified.
        self.verified_program: Any = None
        self.holding: set[str] = set()

    def enter(self, passes: Sequence[Any], program: Any) -> None:
        self.passes = list(passes)
        self.verified_program, self.holding = None, set()
        if self.verify_properties:
            props = verifiable(set(STRUCTURAL) | source_contracts(self.passes))
            errors = error_findings(props, program)
            if errors:
                raise InputVerificationError("the input program is not well formed:\n"
                                             + PropertyVerifierRegistry.generate_report(errors))
            self.verified_program, self.holding = program, set(props)
        self.analysis = check_pipeline(self.passes, program_input(program))

    def after_step(self, step: int, p: Any, given: Any, result: Any) -> None:
        if not self.verify_properties:
            return
        props = properties_after(self.passes, self.analysis, step)
        if result is not self.verified_program:
            self.verified_program, self.holding = result, set()
        errors = error_findings([prop for prop in props if prop not in self.holding], result)
        if not errors:
            self.holding.update(props)
            return
        label = pass_label(p)
        broken = sorted({d.rule_name for d in errors})
        before = error_findings(broken, given)
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


class VerifiedSetVerification(PipelineInstrument):
    """PyPTO's PassPipeline checks (module docstring)."""

    def __init__(self) -> None:
        self.verified_kinds = get_verified_properties()
        self.verified = get_structural_properties().intersection(self.verified_kinds)

    def enter(self, passes: Sequence[Any], program: Any) -> None:
        verify_or_raise(self.verified, program, f"Verification failed on the pipeline input for properties "
                                                f"{self.verified}")

    def after_step(self, step: int, p: Any, given: Any, result: Any) -> None:
        self.verified = self.verified.difference(p.get_invalidated_properties())
        to_check = p.get_produced_properties().intersection(self.verified_kinds).difference(self.verified)
        verify_or_raise(to_check, result, f"Verification failed after '{p.get_name()}' for properties {to_check}")
        self.verified = self.verified.union_with(to_check)


class RoundtripCheck(PipelineInstrument):
    """Print -> parse -> structural equality after each pass (instruments/roundtrip.py)."""

    timing_label = "round trip (print, parse, compare)"

    def after_step(self, step: int, p: Any, given: Any, result: Any) -> None:
        from pypto_core.passes.instruments.roundtrip import check_roundtrip

        check_roundtrip(p.get_name(), result)


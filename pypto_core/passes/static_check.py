"""The static pipeline check: before anything runs, every property a pass requires must hold there.

A property holds before pass k when the input has it, or an earlier pass produced it, and no pass in
between invalidated it. The input is assumed to have the structural properties (the PassManager
verifies those that have a verifier); any other property the input must have is verified on the
program when one is given, and otherwise counts as missing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pypto_core.errors import UserError
from pypto_core.passes.naming import pass_label
from pypto_core.passes.property_sets import STRUCTURAL

InputCheck = Callable[[str], tuple[bool, str]]  # property -> (input has it, why not)


@dataclass
class PropertyProblem:
    step: int  # 1-based position in the pipeline
    pass_label: str
    pass_name: str
    prop: str
    reason: str
    producers: list[str]

    def describe(self) -> str:
        producers = ", ".join(self.producers) if self.producers else "none is registered"
        return (f"pass '{self.pass_label}' ({self.pass_name}, step {self.step}) requires property {self.prop}, "
                f"which does not hold there: {self.reason}. Registered passes that produce {self.prop}: "
                f"{producers}")


@dataclass
class PipelineAnalysis:
    problems: list[PropertyProblem] = field(default_factory=list)
    held_after: list[set[str]] = field(default_factory=list)  # properties that hold after each step


class PipelineCheckError(UserError):
    def __init__(self, problems: list[PropertyProblem]) -> None:
        self.problems = problems
        lines = ["the pipeline cannot run: a required property would not hold"]
        lines += [f"  - {p.describe()}" for p in problems]
        super().__init__("\n".join(lines))


def producers_of(prop: str) -> list[str]:
    from pypto_core.passes.registry import PASSES

    # A pass that requires the property only keeps it: it cannot establish it.
    return sorted(name for name, cls in PASSES.items() if prop in cls.produced and prop not in cls.required)


def no_program_input(prop: str) -> tuple[bool, str]:
    """Without a program, the input is only known to have the structural properties."""
    if prop in STRUCTURAL:
        return True, ""
    return False, "the input is not known to have it (only structural properties are assumed)"


def program_input(program: Any) -> InputCheck:
    """Check a property on an actual input program with its verifier."""
    from pypto_core.passes.verifier_registry import PropertyVerifierRegistry, error_findings

    def check(prop: str) -> tuple[bool, str]:
        if not PropertyVerifierRegistry.has_verifier(prop):
            if prop in STRUCTURAL:
                return True, ""
            return False, "the input does not establish it (it has no verifier that could show it does)"
        errors = error_findings([prop], program)
        if errors:
            return False, f"the input program does not have it ({errors[0].message})"
        return True, ""

    return check


def analyse_pipeline(passes: Sequence[Any], input_has: InputCheck = no_program_input) -> PipelineAnalysis:
    analysis = PipelineAnalysis()
    holds: dict[str, str] = {p: "the input" for p in STRUCTURAL}
    invalidated_by: dict[str, str] = {}
    asked_input: dict[str, tuple[bool, str]] = {}
    for step, p in enumerate(passes, 1):
        label = pass_label(p)
        for prop in (str(x) for x in p.get_required_properties()):
            if prop in holds:
                continue
            if prop in invalidated_by:
                reason = f"{invalidated_by[prop]} invalidated it"
            else:
                if prop not in asked_input:
                    asked_input[prop] = input_has(prop)
                ok, why = asked_input[prop]
                if ok:
                    holds[prop] = "the input"
                    continue
                reason = f"{why}, and no earlier pass produces it"
            producers = [name for name in producers_of(prop) if name != label]  # not itself: it needs it first
            analysis.problems.append(PropertyProblem(step, label, p.get_name(), prop, reason, producers))
            holds[prop] = "assumed"  # report each missing property once, at its first use
        for prop in (str(x) for x in p.get_invalidated_properties()):
            holds.pop(prop, None)
            invalidated_by[prop] = f"pass '{label}' (step {step})"
        for prop in (str(x) for x in p.get_produced_properties()):
            holds[prop] = label
            invalidated_by.pop(prop, None)
        analysis.held_after.append({k for k, v in holds.items() if v != "assumed"})
    return analysis


def check_pipeline(passes: Sequence[Any], input_has: InputCheck = no_program_input) -> PipelineAnalysis:
    analysis = analyse_pipeline(passes, input_has)
    if analysis.problems:
        raise PipelineCheckError(analysis.problems)
    return analysis

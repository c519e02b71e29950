"""PassPipeline: PyPTO's list of passes run with property verification (docs/architecture.md, the pass manager)."""

from __future__ import annotations

from typing import Any

from pypto_core.errors import VerificationError
from pypto_core.passes.context import PassContext
from pypto_core.passes.instruments.roundtrip import check_roundtrip
from pypto_core.passes.properties import IRPropertySet
from pypto_core.passes.property_sets import get_structural_properties, get_verified_properties
from pypto_core.passes.verification_level import VerificationLevel, level_from_env
from pypto_core.passes.verifier_registry import DiagnosticSeverity, PropertyVerifierRegistry


class PassPipeline:
    def __init__(self) -> None:
        self._passes: list[Any] = []

    def add_pass(self, p: Any) -> None:
        self._passes.append(p)

    def get_passes(self) -> list[Any]:
        return list(self._passes)

    def get_pass_names(self) -> list[str]:
        return [p.get_name() for p in self._passes]

    def run(self, program: Any) -> Any:
        ctx = PassContext.current()
        level = ctx.get_verification_level() if ctx is not None else level_from_env()
        if level is VerificationLevel.NONE:
            for p in self._passes:
                program = p(program)
            return program
        verified_kinds = get_verified_properties()
        verified = get_structural_properties().intersection(verified_kinds)
        _check(verified, program, "Verification failed on the pipeline input for properties")
        for p in self._passes:
            program = p(program)  # fires the context's instruments
            verified = verified.difference(p.get_invalidated_properties())
            to_check = p.get_produced_properties().intersection(verified_kinds).difference(verified)
            _check(to_check, program, f"Verification failed after '{p.get_name()}' for properties")
            verified = verified.union_with(to_check)
            if level is VerificationLevel.ROUNDTRIP:
                check_roundtrip(p.get_name(), program)
        return program


def _check(props: IRPropertySet, program: Any, headline: str) -> None:
    if props.empty():
        return
    diags = PropertyVerifierRegistry.verify(props, program)
    if any(d.severity is DiagnosticSeverity.Error for d in diags):
        raise VerificationError(f"{headline} {props}:\n{PropertyVerifierRegistry.generate_report(diags)}")

"""The IRVerifier pass: `passes.run_verifier(properties=None)` checks properties, returns the program as is."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pypto_core.passes.pass_base import Pass, PassOptions
from pypto_core.passes.properties import IRProperty, IRPropertySet
from pypto_core.passes.property_sets import get_default_verify_properties
from pypto_core.passes.verifier_registry import PropertyVerifierRegistry


class RunVerifierOptions(PassOptions):
    # Property names; none means get_default_verify_properties().
    properties: list[str] | None = None


class IRVerifierPass(Pass):
    name = "IRVerifier"
    factory_name = "run_verifier"
    Options = RunVerifierOptions
    description = "Verify IR properties (default: get_default_verify_properties()) and fail on errors."

    def property_set(self) -> IRPropertySet:
        names = self.options.properties  # type: ignore[attr-defined]
        return get_default_verify_properties() if names is None else IRPropertySet(names)

    def run(self, program: Any, ctx: Any) -> Any:
        PropertyVerifierRegistry.verify_or_throw(self.property_set(), program)
        return program


def run_verifier(properties: IRPropertySet | Iterable[IRProperty | str] | None = None) -> IRVerifierPass:
    if properties is None:
        return IRVerifierPass()
    return IRVerifierPass(properties=[str(p) for p in IRPropertySet(properties)])

"""`pypto.passes`: pass factories (looked up in the plugin registry), contexts, instruments, properties."""

from typing import Any as _Any

from pypto_core.passes.properties import IRProperty, IRPropertySet
from pypto_core.passes.verifier_registry import (
    Diagnostic,
    DiagnosticSeverity,
    PropertyVerifierRegistry,
    verify_properties,
)


def __getattr__(name: str) -> _Any:
    """`passes.outline_incore_scopes` -> a factory for the registered pass of that name."""
    if name.startswith("_"):
        raise AttributeError(name)
    from pypto_core.passes.factories import factory

    return factory(name)


__all__ = ["Diagnostic", "DiagnosticSeverity", "IRProperty", "IRPropertySet", "PropertyVerifierRegistry",
           "verify_properties"]

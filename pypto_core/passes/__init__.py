"""`pypto.passes`: pass factories (looked up in the plugin registry), contexts, instruments, properties."""

from typing import Any as _Any

from pypto_core.passes.context import PassContext
from pypto_core.passes.instruments import (
    CallbackInstrument,
    PassInstrument,
    ReportInstrument,
    VerificationInstrument,
    VerificationMode,
    make_roundtrip_instrument,
)
from pypto_core.passes.manager import PassManager
from pypto_core.passes.memory_planner import MemoryPlanner
from pypto_core.passes.pass_base import Pass, PassOptions
from pypto_core.passes.pipeline import PassPipeline
from pypto_core.passes.properties import IRProperty, IRPropertySet
from pypto_core.passes.property_sets import (
    get_default_verify_properties,
    get_structural_properties,
    get_verified_properties,
)
from pypto_core.passes.run_verifier import run_verifier
from pypto_core.passes.verification_level import VerificationLevel
from pypto_core.passes.verifier_registry import (
    Diagnostic,
    DiagnosticSeverity,
    PropertyVerifierRegistry,
    verify_properties,
)


def __getattr__(name: str) -> _Any:
    """`passes.outline_incore_scopes` -> a factory for the registered pass of that name; a name a plugin
    publishes in the passes namespace (`passes.l0_tile_chooser`) -> that value."""
    if name.startswith("_"):
        raise AttributeError(name)
    from pypto_core.passes.factories import factory
    from pypto_core.passes.registry import PASSES_NAMESPACE

    published = PASSES_NAMESPACE.get(name)
    if published is not None:
        return published

    return factory(name)


__all__ = ["CallbackInstrument", "Diagnostic", "DiagnosticSeverity", "IRProperty", "IRPropertySet", "MemoryPlanner", "Pass",
           "PassContext", "PassInstrument", "PassManager", "PassOptions", "PassPipeline", "ReportInstrument",
           "PropertyVerifierRegistry", "VerificationInstrument", "VerificationLevel", "VerificationMode",
           "get_default_verify_properties", "get_structural_properties", "get_verified_properties",
           "make_roundtrip_instrument", "run_verifier", "verify_properties"]

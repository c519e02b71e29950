"""`pypto.passes`: pass factories (looked up in the plugin registry), contexts, instruments, properties."""

import importlib as _importlib
from typing import Any as _Any

# Each public name and the module defining it, imported on first use (PEP 562): a process that only reads
# `pypto_core.passes.verification_level` (the command line's option table) loads no pass machinery
# (docs/architecture.md, performance).
_EXPORTS = {
    "PassContext": "context",
    "CallbackInstrument": "instruments", "PassInstrument": "instruments", "VerificationInstrument": "instruments",
    "VerificationMode": "instruments", "make_roundtrip_instrument": "instruments", "ReportInstrument": "instruments",
    "PassManager": "manager",
    "MemoryPlanner": "memory_planner",
    "Pass": "pass_base", "PassOptions": "pass_base",
    "PassPipeline": "pipeline",
    "IRProperty": "properties", "IRPropertySet": "properties",
    "get_default_verify_properties": "property_sets", "get_structural_properties": "property_sets",
    "get_verified_properties": "property_sets",
    "run_verifier": "ir_verifier",  # not a module of the same name: the attribute would be the module
    "VerificationLevel": "verification_level",
    "Diagnostic": "verifier_registry", "DiagnosticSeverity": "verifier_registry",
    "PropertyVerifierRegistry": "verifier_registry", "verify_properties": "verifier_registry",
}


def __getattr__(name: str) -> _Any:
    """`passes.outline_incore_scopes` -> a factory for the registered pass of that name; a name a plugin
    publishes in the passes namespace (`passes.l0_tile_chooser`) -> that value."""
    if name.startswith("_"):
        raise AttributeError(name)
    module = _EXPORTS.get(name)
    if module is not None:
        value = getattr(_importlib.import_module(f"pypto_core.passes.{module}"), name)
        globals()[name] = value  # later lookups skip this function
        return value
    from pypto_core.passes.factories import factory
    from pypto_core.passes.registry import PASSES_NAMESPACE

    published = PASSES_NAMESPACE.get(name)
    if published is not None:
        return published

    return factory(name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))


__all__ = ["CallbackInstrument", "Diagnostic", "DiagnosticSeverity", "IRProperty", "IRPropertySet", "MemoryPlanner", "Pass",
           "PassContext", "PassInstrument", "PassManager", "PassOptions", "PassPipeline", "ReportInstrument",
           "PropertyVerifierRegistry", "VerificationInstrument", "VerificationLevel", "VerificationMode",
           "get_default_verify_properties", "get_structural_properties", "get_verified_properties",
           "make_roundtrip_instrument", "run_verifier", "verify_properties"]

"""Entry point of the pass_prefix plugin: InlineFunctions, UnrollLoops, FlattenCallExpr and the properties they
establish (InlineFunctionsEliminated, UnrollResolved, NoNestedCalls), with their verifiers."""

from __future__ import annotations

from typing import Any

from pypto_core.plugins import hookimpl
from pypto_plugins.pass_prefix.flatten_call_expr import FlattenCallExpr
from pypto_plugins.pass_prefix.inline_functions import InlineFunctions
from pypto_plugins.pass_prefix.unroll_loops import UnrollLoops
from pypto_plugins.pass_prefix.verifiers import PROPERTIES


@hookimpl
def pypto_register_passes(registry: Any) -> None:
    registry.register_pass(InlineFunctions)
    registry.register_pass(UnrollLoops)
    registry.register_pass(FlattenCallExpr)


@hookimpl
def pypto_register_properties(registry: Any) -> None:
    for name, (verifier, doc) in PROPERTIES.items():
        registry.register_property(name, verifier, doc)

"""Entry point of the pass_split plugin: the vector-split passes and the properties they establish."""

from __future__ import annotations

from typing import Any

from pypto_core.plugins import hookimpl
from pypto_plugins.pass_split.interfaces import INTERFACES
from pypto_plugins.pass_split.verifiers import VERIFIERS


@hookimpl
def pypto_register_properties(registry: Any) -> None:
    for name, (verifier, doc) in VERIFIERS.items():
        registry.register_property(name, verifier, doc)


@hookimpl
def pypto_register_passes(registry: Any) -> None:
    from pypto_plugins.pass_split.passes import PASSES

    for interface in INTERFACES:
        registry.declare_interface(interface)
    for pass_cls in PASSES:
        registry.register_pass(pass_cls)

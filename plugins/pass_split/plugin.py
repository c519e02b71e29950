"""Entry point of the pass_split plugin: the vector-split passes, the properties they establish and the split
forms of pypto's own ops."""

from __future__ import annotations

from typing import Any

from pypto_core.plugins import hookimpl
from pypto_plugins.pass_split.interfaces import INTERFACES
from pypto_plugins.pass_split.verifiers import VERIFIERS


@hookimpl
def pypto_register_ops(registry: Any) -> None:
    """The split forms of pypto's own ops (split_forms/): the split_form interface is this plugin's."""
    from pypto_plugins.pass_split.split_forms import SPLIT_FORMS

    for op_name, split_form in SPLIT_FORMS.items():
        registry.implement("split_form", op_name, split_form)


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

"""Entry point of the ops_tile plugin (group `pypto.plugins`, name `ops_tile`)."""

from __future__ import annotations

from typing import Any

from pypto_core.ops.registry import raw_registry
from pypto_core.plugins import hookimpl
from pypto_plugins.ops_tile import dsl
from pypto_plugins.ops_tile.families import FAMILIES
from pypto_plugins.ops_tile.lowering import FLATTEN_RULES, TILE_FORMS
from pypto_plugins.ops_tile.ops import ALL_OPDEFS
from pypto_plugins.ops_tile.ops.tensor_views import TILE_FORMS as GM_TILE_FORMS
from pypto_plugins.ops_tile.semantics import EVALUATORS


@hookimpl
def pypto_register_ops(registry: Any) -> None:
    for family in FAMILIES:
        registry.register_family(family)
    # Transitional: the ops not yet defined by a family come from the old tables.
    taken = raw_registry()
    opdefs = [opdef for opdef in ALL_OPDEFS() if opdef.name not in taken.ops]
    for opdef in opdefs:
        registry.register_op(opdef)
    names = {opdef.name for opdef in opdefs}
    for name, evaluate in EVALUATORS.items():
        if name in names:
            registry.register_semantics(name, evaluate)
    for interface, table in (("tile_form", {**TILE_FORMS(), **GM_TILE_FORMS}), ("flatten_2d", FLATTEN_RULES())):
        for name, form in table.items():
            if name in names:
                registry.implement(interface, name, form)
    for namespace, functions in dsl.NAMESPACES.items():
        for name, fn in functions.items():
            if f"{namespace}.{name}" not in taken.dsl:
                registry.register_dsl(f"{namespace}.{name}", fn)
                registry.register_builder(namespace, name, fn)
    for name, fn in dsl.ALL_UNIFIED.items():
        if name not in taken.dsl:
            registry.register_dsl(name, fn)

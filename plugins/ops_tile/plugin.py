"""Entry point of the ops_tile plugin (group `pypto.plugins`, name `ops_tile`)."""

from __future__ import annotations

from typing import Any

from pypto_core.plugins import hookimpl
from pypto_plugins.ops_tile import dsl
from pypto_plugins.ops_tile.lowering import FLATTEN_RULES, TILE_FORMS
from pypto_plugins.ops_tile.ops import ALL_OPDEFS
from pypto_plugins.ops_tile.ops.tensor_views import TILE_FORMS as GM_TILE_FORMS
from pypto_plugins.ops_tile.semantics import EVALUATORS


@hookimpl
def pypto_register_ops(registry: Any) -> None:
    opdefs = ALL_OPDEFS()
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
    dsl.register(registry)

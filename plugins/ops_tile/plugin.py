"""Entry point of the ops_tile plugin (group `pypto.plugins`, name `ops_tile`)."""

from __future__ import annotations

from typing import Any

from pypto_core.plugins import hookimpl
from pypto_plugins.ops_tile import dsl
from pypto_plugins.ops_tile.lowering import FLATTEN_RULES, SPLIT_FORMS, TILE_FORMS
from pypto_plugins.ops_tile.ops import ALL_OPDEFS
from pypto_plugins.ops_tile.semantics import EVALUATORS


@hookimpl
def pypto_register_ops(registry: Any) -> None:
    tile_forms, flatten_rules, split_forms = TILE_FORMS(), FLATTEN_RULES(), SPLIT_FORMS()
    for opdef in ALL_OPDEFS():
        # Type rules live in ops/, numpy semantics in semantics/, pass rewrite rules in lowering/; they meet here.
        if opdef.evaluate is None:
            opdef.evaluate = EVALUATORS.get(opdef.name)
        if opdef.tile_form is None:
            opdef.tile_form = tile_forms.get(opdef.name)
        if opdef.flatten_2d is None:
            opdef.flatten_2d = flatten_rules.get(opdef.name)
        if opdef.split_form is None:
            opdef.split_form = split_forms.get(opdef.name)
        registry.register_op(opdef)
    dsl.register(registry)

"""Entry point of the ops_tile plugin (group `pypto.plugins`, name `ops_tile`)."""

from __future__ import annotations

from typing import Any

from pypto_core.plugins import hookimpl
from pypto_plugins.ops_tile import dsl
from pypto_plugins.ops_tile.ops import ALL_OPDEFS
from pypto_plugins.ops_tile.semantics import EVALUATORS


@hookimpl
def pypto_register_ops(registry: Any) -> None:
    for opdef in ALL_OPDEFS():
        # Type rules live in ops/, numpy semantics in semantics/; they meet here.
        if opdef.evaluate is None:
            opdef.evaluate = EVALUATORS.get(opdef.name)
        registry.register_op(opdef)
    dsl.register(registry)

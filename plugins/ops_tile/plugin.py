"""Entry point of the ops_tile plugin (group `pypto.plugins`, name `ops_tile`)."""

from __future__ import annotations

from typing import Any

from pypto_plugins.ops_tile import dsl
from pypto_plugins.ops_tile.ops import ALL_OPDEFS

from pypto_core.plugins import hookimpl


@hookimpl
def pypto_register_ops(registry: Any) -> None:
    for opdef in ALL_OPDEFS():
        registry.register_op(opdef)
    dsl.register(registry)

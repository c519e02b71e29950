"""The `pl` DSL names and IR builders of the ops_tile plugin (API.md 3.2-3.6), one module per family.

One Python function per op is both the DSL function the parser calls for `pl.tile.load(...)` and
the IR builder `pypto.ir.op.tile_ops.load`: it takes the op's IR operands positionally, in order,
and its kwargs by name, so the printed text of a call re-parses to the same call (API.md 8.6).
"""

from __future__ import annotations

from typing import Any

from pypto_plugins.ops_tile.dsl import (
    cross_core,
    system,
    tensor,
    tile_compute,
    tile_generators,
    tile_memory,
    tile_views,
)
from pypto_plugins.ops_tile.dsl.unified import UNIFIED

NAMESPACES: dict[str, dict[str, Any]] = {
    "tile": {**tile_memory.TILE, **tile_generators.TILE, **tile_compute.TILE, **tile_views.TILE,
             **cross_core.TILE},
    "tensor": {**tensor.TENSOR, **cross_core.TENSOR},
    "system": {**system.SYSTEM, **cross_core.SYSTEM},
}


def register(registry: Any) -> None:
    for namespace, functions in NAMESPACES.items():
        for name, fn in functions.items():
            registry.register_dsl(f"{namespace}.{name}", fn)
            registry.register_builder(namespace, name, fn)
    for name, fn in UNIFIED.items():
        registry.register_dsl(name, fn)

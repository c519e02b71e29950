"""The `pl` DSL names and IR builders of the ops_tile plugin (docs/reference/ops.md), one module per family.

One Python function per op is both the DSL function the parser calls for `pl.tile.load(...)` and
the IR builder `pypto.ir.op.tile_ops.load`: it takes the op's IR operands positionally, in order,
and its kwargs by name, so the printed text of a call re-parses to the same call (docs/dsl.md, the printed form).
"""

from __future__ import annotations

from typing import Any

from pypto_plugins.ops_tile.dsl import (
    broadcast_reduce,
    cross_core,
    elementwise_extra,
    gather_sort,
    system,
    system_matmul,
    tensor,
    tile_compute,
    tile_generators,
    tile_memory,
    tile_views,
    views_alloc,
)
from pypto_plugins.ops_tile.dsl.unified import UNIFIED

# issue 14 families (the rest of OPS.md); a later module's spelling overrides an earlier one of the same name.
_FAMILIES = (elementwise_extra, broadcast_reduce, views_alloc, gather_sort, system_matmul)

NAMESPACES: dict[str, dict[str, Any]] = {
    "tile": {**tile_memory.TILE, **tile_generators.TILE, **tile_compute.TILE, **tile_views.TILE,
             **cross_core.TILE, **{k: v for m in _FAMILIES for k, v in m.TILE.items()}},
    "tensor": {**tensor.TENSOR, **cross_core.TENSOR, **{k: v for m in _FAMILIES for k, v in m.TENSOR.items()}},
    "system": {**system.SYSTEM, **cross_core.SYSTEM, **{k: v for m in _FAMILIES for k, v in m.SYSTEM.items()}},
}
ALL_UNIFIED: dict[str, Any] = {**UNIFIED, **{k: v for m in _FAMILIES for k, v in m.UNIFIED.items()}}


def register(registry: Any) -> None:
    for namespace, functions in NAMESPACES.items():
        for name, fn in functions.items():
            registry.register_dsl(f"{namespace}.{name}", fn)
            registry.register_builder(namespace, name, fn)
    for name, fn in ALL_UNIFIED.items():
        registry.register_dsl(name, fn)

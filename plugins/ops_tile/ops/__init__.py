"""OpDefs of the ops_tile plugin, one module per family."""

from __future__ import annotations

from pypto_core.ops.opdef import OpDef


def ALL_OPDEFS() -> list[OpDef]:  # noqa: N802 - a constant-like accessor
    from pypto_plugins.ops_tile.ops import (
        broadcast_reduce,
        cross_core,
        elementwise_extra,
        gather_sort,
        system,
        system_matmul,
        tensor_compute,
        tensor_elementwise,
        tensor_views,
        tile_elementwise,
        tile_generators,
        tile_index,
        tile_matmul,
        tile_memory,
        tile_reduce,
        tile_views,
        views_alloc,
    )

    modules = (tile_memory, tile_generators, tile_elementwise, tile_views, tile_reduce, tile_matmul, tile_index,
               cross_core, system, tensor_elementwise, tensor_views, tensor_compute,
               # issue 14: the rest of PyPTO's op set (OPS.md), one module per family
               elementwise_extra, broadcast_reduce, views_alloc, gather_sort, system_matmul)
    return [opdef for m in modules for opdef in m.OPDEFS]

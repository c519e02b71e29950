"""Tile forms of the tensor ops (pypto_core.ops.tile_form): what ConvertTensorToTileOps lowers them to."""

from __future__ import annotations

from pypto_core.ops.tile_form import TileForm


def _families() -> tuple:
    # issue 14 families (the rest of OPS.md); their rules override the base tables' entries of the same op.
    from pypto_plugins.ops_tile.lowering import (
        broadcast_reduce,
        elementwise_extra,
        gather_sort,
        system_matmul,
        views_alloc,
    )

    return elementwise_extra, broadcast_reduce, views_alloc, gather_sort, system_matmul


def TILE_FORMS() -> dict[str, TileForm]:  # noqa: N802 - a constant-like accessor
    from pypto_plugins.ops_tile.lowering import compute, memory

    table = {**compute.tile_forms(), **memory.tile_forms()}
    for family in _families():
        table.update(family.tile_forms())
    return table


def FLATTEN_RULES() -> dict:  # noqa: N802 - a constant-like accessor
    from pypto_plugins.ops_tile.lowering.flatten import flatten_rules

    table = dict(flatten_rules())
    for family in _families():
        table.update(family.flatten_rules())
    return table

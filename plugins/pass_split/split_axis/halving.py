"""Halving a tile type along a split axis (docs/passes/lower_auto_vector_split.md, what it does).

The physical extent becomes the lane box ceil(n / 2) (a dynamic n: n // 2); the valid extent becomes
this lane's part (lanes.LanePartition.lane_valid). Layout, pad and the other axes are kept: a result
keeps the view it had (in the example of docs/passes/lower_auto_vector_split.md, `y` keeps col_major / row_major).
"""

from __future__ import annotations

from collections.abc import Sequence

from pypto_core.ir.enums import CompactMode
from pypto_core.ir.expr import Expr
from pypto_core.ir.types import TileType, TileView, implicit_layout
from pypto_core.ops.build import ceil_half
from pypto_plugins.pass_split.split_axis.lanes import LanePartition, lane_one_may_be_empty


def halve_tile_type(t: TileType, axis: int, partition: LanePartition) -> tuple[TileType, bool]:
    """(the lane's type of `t`, whether lane 1's valid extent can be empty)."""
    shape, valid = list(t.shape), list(t.valid_shape)
    extent = shape[axis]
    shape[axis] = ceil_half(extent)
    valid[axis] = partition.lane_valid(valid[axis], extent)
    if t.tile_view is not None:
        base = t.tile_view
    else:
        blayout, slayout, fractal = implicit_layout(shape, t.memory_space)
        base = TileView(blayout=blayout, slayout=slayout, fractal=fractal)
    view = base.with_fields(valid_shape=tuple(valid))  # TileType drops a valid region equal to the shape
    return TileType(shape, t.dtype, t.memref, view, t.memory_space), lane_one_may_be_empty(valid[axis])


def with_valid_region(t: TileType, valid: Sequence[Expr], compact: CompactMode | None = None) -> TileType:
    """`t` with another valid region (and, when given, the compact mode that goes with it), its view (or the one
    its shape implies) kept otherwise."""
    view = (t.tile_view or t.effective_view()).with_fields(valid_shape=tuple(valid))
    if compact is not None:
        view = view.with_fields(compact=compact)
    return TileType(t.shape, t.dtype, t.memref, view, t.memory_space)

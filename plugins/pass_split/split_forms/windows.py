"""Split forms of the ops that address a window: tile.load, tile.store, tile.slice (rules: __init__.py)."""

from __future__ import annotations

from collections.abc import Sequence

from pypto_core.ir.expr import Call, Expr, MakeTuple
from pypto_core.ir.types import TileType
from pypto_core.ops.build import same_dim, shape_text, static_int, tuple_elements
from pypto_core.ops.split_form import SplitLowering
from pypto_plugins.pass_split.split_forms.common import (
    dims,
    split_axis_of_rank,
    tile_type,
    unchanged_for_every_lane,
)


def one_element_deep_is_a_broadcast_read(extent: Expr) -> bool:
    """A window one element deep on the split axis is read whole by every lane (the same row for both)."""
    return static_int(extent) == 1


def halve_load_window(ctx: SplitLowering, call: Call, args: list[Expr]) -> tuple[Expr, int | None]:
    """tile.load: this lane's half of the window (extent halved, offset and valid extent the lane's)."""
    t = tile_type(call)
    offsets, shapes = dims(args[1]), dims(args[2])
    valid = dims(args[3]) if len(args) > 3 else dims(args[2])
    if len(shapes) != len(t.shape):
        raise ctx.reject(f"tile.load reads a {len(shapes)}-D window into a {len(t.shape)}-D tile; a split kernel "
                         f"halves 2-D loads only: load a 2-D window of the tensor (reshape the tensor view)")
    axis = split_axis_of_rank(ctx, len(shapes))
    if axis is None or one_element_deep_is_a_broadcast_read(shapes[axis]):
        return unchanged_for_every_lane(call, args)
    extent = shapes[axis]
    offsets[axis] = ctx.lane_offset(offsets[axis], extent)
    valid[axis] = ctx.lane_valid(valid[axis], extent)
    shapes[axis] = ctx.half(extent)
    return ctx.call("tile.load", [args[0], MakeTuple(offsets), MakeTuple(shapes), MakeTuple(valid)],
                    dict(call.kwargs)), axis


def store_at_the_lanes_offset(ctx: SplitLowering, call: Call, args: list[Expr]) -> tuple[Expr, int | None]:
    """tile.store of a split tile: this lane's half goes to its part of the destination window."""
    axis = ctx.split_axis(args[0])
    if axis is None:
        return unchanged_for_every_lane(call, args)
    full = tile_type(call.args[0])
    offsets = dims(args[1])
    if len(args) > 3 or len(offsets) != len(full.shape):
        raise ctx.reject(f"tile.store writes a split {len(full.shape)}-D tile through {len(offsets)}-D offsets"
                         f"{' and explicit shapes' if len(args) > 3 else ''}; a split kernel stores 2-D tiles "
                         f"into 2-D windows: store into a 2-D view of the tensor")
    offsets[axis] = ctx.lane_offset(offsets[axis], full.shape[axis])
    return ctx.call("tile.store", [args[0], MakeTuple(offsets), *args[2:]], dict(call.kwargs)), None


def _dropped_dims(args: Sequence[Expr], rank: int) -> list[int]:
    if len(args) <= 4:
        return []
    return sorted(int(static_int(d) or 0) % rank for d in tuple_elements(args[4]))


def axis_after_dropping_dims(pre_axis: int, dropped: Sequence[int], rank: int) -> int | None:
    """A pre-drop axis in the result of tile.slice(drop_dims): kept axes, padded back to 2-D with 1s."""
    if pre_axis in dropped:
        return None
    kept = [i for i in range(rank) if i not in dropped]
    pad = max(0, 2 - len(kept))
    return kept.index(pre_axis) + pad


def axis_before_dropping_dims(result_axis: int, dropped: Sequence[int], rank: int) -> int | None:
    """The inverse: a result axis of tile.slice(drop_dims) in the source's axes (None for a padded 1)."""
    kept = [i for i in range(rank) if i not in dropped]
    pad = max(0, 2 - len(kept))
    return kept[result_axis - pad] if result_axis >= pad else None


def a_window_of_a_split_tile_spans_the_split_axis(ctx: SplitLowering, src: TileType, shape: Sequence[Expr],
                                                  offset: Sequence[Expr], split: int) -> None:
    """A lane holds only its half of a split tile: a slice of it must take the whole split axis (offset 0)."""
    if static_int(offset[split]) != 0 or not same_dim(shape[split], src.shape[split]):
        raise ctx.reject(f"tile.slice takes {shape_text(shape)} at {shape_text(offset)} of a tile split on "
                         f"dim {split}: a window of a split tile must span the split axis (offset 0, the "
                         f"whole {shape_text([src.shape[split]])}); slice before the split or along the "
                         f"other axis")


def halve_slice_window(ctx: SplitLowering, call: Call, args: list[Expr]) -> tuple[Expr, int | None]:
    """tile.slice: of a split tile, the window halves with its source; of a full-width tile, it halves and
    moves to the lane's part like a load's."""
    shape, offset = dims(args[1]), dims(args[2])
    valid = dims(args[3]) if len(args) > 3 and tuple_elements(args[3]) else None
    rank = len(shape)
    dropped = _dropped_dims(args, rank)
    split = ctx.split_axis(args[0])
    if split is not None:
        a_window_of_a_split_tile_spans_the_split_axis(ctx, tile_type(call.args[0]), shape, offset, split)
        axis = split
    else:
        axis = axis_before_dropping_dims(ctx.dim, dropped, rank) if dropped else split_axis_of_rank(ctx, rank)
        if axis is None or one_element_deep_is_a_broadcast_read(shape[axis]):
            return unchanged_for_every_lane(call, args)
        offset[axis] = ctx.lane_offset(offset[axis], shape[axis])
    extent = shape[axis]
    if valid is not None:
        valid[axis] = ctx.lane_valid(valid[axis], extent)
    shape[axis] = ctx.half(extent)
    new_args = [args[0], MakeTuple(shape), MakeTuple(offset)]
    if valid is not None or dropped:
        new_args.append(MakeTuple(valid or []))
    if dropped:
        new_args.append(args[4])
    result = axis_after_dropping_dims(axis, dropped, rank) if dropped else axis
    return ctx.call("tile.slice", new_args, dict(call.kwargs)), result

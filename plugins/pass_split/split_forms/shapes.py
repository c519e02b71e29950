"""Split forms of the ops whose operands give the result's shape: tile.full, tile.reshape,
tile.reinterpret_view, tile.fillpad_expand, tile.concat (rules: __init__.py)."""

from __future__ import annotations

from collections.abc import Sequence

from pypto_core.errors import UserError
from pypto_core.ir.expr import Add, Call, ConstInt, Expr, MakeTuple
from pypto_core.ir.types import TileType
from pypto_core.ops.build import same_dim, shape_text, static_int
from pypto_core.ops.split_form import SplitFormFn, SplitLowering
from pypto_plugins.pass_split.split_forms.common import (
    dims,
    split_axis_of_rank,
    tile_type,
    unchanged_for_every_lane,
)
from pypto_plugins.pass_split.split_forms.windows import one_element_deep_is_a_broadcast_read


def halve_full_shape(ctx: SplitLowering, call: Call, args: list[Expr]) -> tuple[Expr, int | None]:
    """tile.full: a lane fills its half of the shape."""
    shape = dims(args[0])
    axis = split_axis_of_rank(ctx, len(shape))
    if axis is None or one_element_deep_is_a_broadcast_read(shape[axis]):
        return unchanged_for_every_lane(call, args)
    shape[axis] = ctx.half(shape[axis])
    return ctx.call(call.op.name, [MakeTuple(shape), *args[1:]], dict(call.kwargs)), axis


def the_split_axis_survives_whole(src: Sequence[Expr], dst: Sequence[Expr], axis: int) -> int | None:
    """The dim of `dst` that is `src`'s dim `axis` after a reshape, when it survives whole."""
    before = [static_int(d) for d in src[:axis]]
    if any(b is None for b in before):
        return axis if len(src) == len(dst) and all(same_dim(a, b) for a, b in zip(src, dst)) else None
    lead = 1
    for b in before:
        lead *= b  # type: ignore[operator]
    acc = 1
    for j, d in enumerate(dst):
        if acc == lead and same_dim(d, src[axis]):
            return j
        v = static_int(d)
        if v is None:
            return None
        acc *= v
    return None


def lane_start(ctx: SplitLowering, extent: Expr) -> Expr:
    """Where this lane's part of an axis of `extent` starts: the bare `subblock_idx * S` (no `0 +`)."""
    offset = ctx.lane_offset(ConstInt(0), extent)
    if isinstance(offset, Add) and static_int(offset.left) == 0:
        return offset.right
    return offset


def _product(values: Sequence[int]) -> int:
    out = 1
    for v in values:
        out *= v
    return out


def the_split_axis_in_flat_layout(ctx: SplitLowering, op: str, src: Sequence[Expr], dst: Sequence[Expr],
                                  axis: int) -> int | None:
    """A reshape of a split value (docs/passes/lower_auto_vector_split.md, which values are split): with every
    dim before the split dim `s` equal to 1, a lane's half is one contiguous run of `flat = (E/2) * prod(dims
    after s)` elements; the new split dim is the first result dim `d` (every dim before it 1) with an even
    extent `e` and `(e/2) * prod(dims after d) == flat`. None: no such dim. An odd E stays split only when the
    result keeps it at dim s. Other layouts keep the split axis only where it survives whole."""
    extent = static_int(src[axis])
    after = [static_int(x) for x in src[axis + 1:]]
    if extent is None or any(static_int(x) != 1 for x in src[:axis]) or any(a is None for a in after):
        return the_split_axis_survives_whole(src, dst, axis)
    if extent % 2:
        if axis < len(dst) and same_dim(dst[axis], src[axis]):
            return axis
        raise ctx.reject(f"{op} of {shape_text(src)} to {shape_text(dst)} reshapes a split axis of odd extent "
                         f"{extent} (dim {axis}): the lanes' parts are not halves of the result's layout; keep "
                         f"that extent at dim {axis}, pad it to an even extent, or reshape before the split")
    flat = extent // 2 * _product(after)  # type: ignore[arg-type]
    out = [static_int(x) for x in dst]
    if any(v is None for v in out):
        return None
    for d, e in enumerate(out):
        if e % 2 == 0 and e // 2 * _product(out[d + 1:]) == flat:  # type: ignore[operator, arg-type]
            return d
        if e != 1:
            return None
    return None


def viewed_whole_then_sliced_per_lane(ctx: SplitLowering, op: str, call: Call,
                                      args: list[Expr]) -> tuple[Expr, int | None]:
    """A view of a full-width tile: the whole view (bound under the statement's own name by the splitter),
    then `tile.slice(view, <lane shape>, [subblock_idx * S, 0])`, this lane's part of it (a static half only)."""
    dst = tile_type(call)
    axis = split_axis_of_rank(ctx, len(dst.shape))
    if axis is None or one_element_deep_is_a_broadcast_read(dst.shape[axis]):
        return unchanged_for_every_lane(call, args)
    extent = static_int(dst.shape[axis])
    if extent is None:
        raise ctx.reject(f"{op} of a full-width tile to {shape_text(dst.shape)} with a runtime extent on the "
                         f"split axis: its per-lane slice needs a static half; load the value per lane instead")
    whole = ctx.bind(ctx.call(op, list(args), dict(call.kwargs)), "viewed")
    shape, offset = list(dst.shape), [ConstInt(0) for _ in dst.shape]
    offset[axis] = lane_start(ctx, dst.shape[axis])
    shape[axis] = ctx.half(dst.shape[axis])
    return ctx.call("tile.slice", [whole, MakeTuple(shape), MakeTuple(offset)]), axis


def an_explicit_reinterpret_shape_is_the_inferred_one(ctx: SplitLowering, call: Call) -> None:
    """tile.reinterpret_view with an explicit shape in a split kernel: only the shape it infers itself (the
    last dim rescaled by the dtypes' widths) says where each lane's bytes are."""
    if len(call.args) < 2:
        return
    inferred = ctx.call(call.op.name, [call.args[0]], dict(call.kwargs)).type
    written = dims(call.args[1])
    if isinstance(inferred, TileType) and len(written) == len(inferred.shape) and \
            all(same_dim(a, b) for a, b in zip(written, inferred.shape)):
        return
    raise UserError("SplitVectorKernel: tile.reinterpret_view with an explicit shape inside a split kernel must match "
                    "its auto-inferred shape. Omit shape= (recommended), or move an arbitrary byte-equivalent "
                    "reinterpret_view outside the split scope.", call.span)


def halve_view(op: str, *, row_major_reshape: bool) -> SplitFormFn:
    """tile.reshape (`row_major_reshape`: the split axis is followed through the flat row-major layout) /
    tile.reinterpret_view (its explicit shape must be the inferred one; the split axis must survive whole)."""

    def split_view(ctx: SplitLowering, call: Call, args: list[Expr]) -> tuple[Expr, int | None]:
        src, dst = tile_type(call.args[0]), tile_type(call)
        if not row_major_reshape:
            an_explicit_reinterpret_shape_is_the_inferred_one(ctx, call)
        source_axis = ctx.split_axis(args[0])
        if source_axis is None:
            return viewed_whole_then_sliced_per_lane(ctx, op, call, args)
        if row_major_reshape:
            axis = the_split_axis_in_flat_layout(ctx, op, src.shape, dst.shape, source_axis)
        else:
            axis = the_split_axis_survives_whole(src.shape, dst.shape, source_axis)
        if axis is None:
            raise ctx.reject(f"{op} of {shape_text(src.shape)} to {shape_text(dst.shape)} moves the split axis "
                             f"(dim {source_axis}) across a layout the pass cannot track: each lane's half is no "
                             f"longer a whole run of the result's leading dim; reshape before the split, or keep "
                             f"the lanes' halves contiguous (dims before the split axis of extent 1)")
        shape = list(dst.shape)
        shape[axis] = ctx.half(shape[axis])
        new_args = list(args)
        if len(new_args) > 1:
            new_args[1] = MakeTuple(shape)
        return ctx.call(op, new_args, dict(call.kwargs)), axis

    return split_view


def halve_fillpad_expand_shape(ctx: SplitLowering, call: Call, args: list[Expr]) -> tuple[Expr, int | None]:
    """tile.fillpad_expand of a split tile: the expanded shape halves with it; growing the split axis is
    rejected (the lanes' halves would not line up)."""
    axis = ctx.split_axis(args[0])
    if axis is None:
        return unchanged_for_every_lane(call, args)
    src = tile_type(call.args[0])
    shape = dims(args[1])
    if not same_dim(shape[axis], src.shape[axis]):
        raise ctx.reject(f"tile.fillpad_expand grows dim {axis} (the split axis) from "
                         f"{shape_text(src.shape)} to {shape_text(shape)}: the lanes' halves would not line up; "
                         f"expand along the other axis or before the split")
    shape[axis] = ctx.half(shape[axis])
    return ctx.call("tile.fillpad_expand", [args[0], MakeTuple(shape)], dict(call.kwargs)), axis


def concat_of_row_split_sources(ctx: SplitLowering, call: Call, args: list[Expr]) -> tuple[Expr, int | None]:
    """tile.concat joins columns: it halves with its sources when both are split on the row axis."""
    axes = {ctx.split_axis(a) for a in args} - {None}
    if not axes:
        return unchanged_for_every_lane(call, args)
    if axes != {0} or any(ctx.split_axis(a) is None for a in args):
        raise ctx.reject("tile.concat joins columns: both sources must be split on the row axis (UP_DOWN); a "
                         "column split would give each lane the wrong columns; concat outside the split function")
    return ctx.call("tile.concat", args), 0

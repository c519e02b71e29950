"""Split forms (pypto_core.ops.split_form): how the tile ops that describe a shape or a window are halved
along the split axis, one AIV lane's part each (docs/passes/lower_auto_vector_split.md, ops that describe a shape or an address.

* tile.load: the window's extent on the split axis halves, its offset moves to the lane's part, its
  valid extent becomes the lane's; a window one element deep on that axis is a broadcast read, kept.
* tile.store of a split tile: the offset moves to the lane's part of the destination.
* tile.slice: of a split tile, the window must span the split axis (it halves with its source); of a
  full-width tile, the window halves and moves like a load's. drop_dims is mapped both ways.
* tile.full: its shape halves.
* tile.reshape / tile.reinterpret_view: a split source keeps its split axis when the axis survives as a
  whole dim (its position may move: [N, 1] <-> [1, N]); a full-width source is viewed whole, then
  sliced per lane.
* tile.ci / tile.random: their values depend on the position, which a halved type cannot express.
"""

from __future__ import annotations

from collections.abc import Sequence

from pypto_core.ir.expr import Call, ConstInt, Expr, MakeTuple
from pypto_core.ir.types import TileType
from pypto_core.ops.build import same_dim, shape_text, static_int, tuple_elements
from pypto_core.ops.split_form import SplitFormFn, SplitLowering


def axis_for_rank(ctx: SplitLowering, rank: int) -> int | None:
    """The function's split axis in a tile of this rank (right-aligned: a 1-D tile is a row)."""
    if rank == 2:
        return ctx.dim
    if rank == 1:
        return 0 if ctx.dim == 1 else None
    return None


def _dims(e: Expr) -> list[Expr]:
    return list(tuple_elements(e))


def _tile(e: Expr) -> TileType:
    t = e.type
    assert isinstance(t, TileType)
    return t


def _kept(call: Call, args: Sequence[Expr]) -> tuple[Expr, None]:
    same = all(a is b for a, b in zip(args, call.args))
    return (call if same else call.with_fields(args=tuple(args))), None


def _load(ctx: SplitLowering, call: Call, args: list[Expr]) -> tuple[Expr, int | None]:
    t = _tile(call)
    offsets, shapes, valid = _dims(args[1]), _dims(args[2]), _dims(args[3]) if len(args) > 3 else _dims(args[2])
    if len(shapes) != len(t.shape):
        raise ctx.reject(f"tile.load reads a {len(shapes)}-D window into a {len(t.shape)}-D tile; a split kernel "
                         f"halves 2-D loads only: load a 2-D window of the tensor (reshape the tensor view)")
    axis = axis_for_rank(ctx, len(shapes))
    if axis is None or static_int(shapes[axis]) == 1:
        return _kept(call, args)  # a broadcast read: every lane reads the same row
    extent = shapes[axis]
    offsets[axis] = ctx.lane_offset(offsets[axis], extent)
    valid[axis] = ctx.lane_valid(valid[axis], extent)
    shapes[axis] = ctx.half(extent)
    return ctx.call("tile.load", [args[0], MakeTuple(offsets), MakeTuple(shapes), MakeTuple(valid)],
                    dict(call.kwargs)), axis


def _store(ctx: SplitLowering, call: Call, args: list[Expr]) -> tuple[Expr, int | None]:
    axis = ctx.split_axis(args[0])
    if axis is None:
        return _kept(call, args)
    full = _tile(call.args[0])
    offsets = _dims(args[1])
    if len(args) > 3 or len(offsets) != len(full.shape):
        raise ctx.reject(f"tile.store writes a split {len(full.shape)}-D tile through {len(offsets)}-D offsets"
                         f"{' and explicit shapes' if len(args) > 3 else ''}; a split kernel stores 2-D tiles "
                         f"into 2-D windows: store into a 2-D view of the tensor")
    offsets[axis] = ctx.lane_offset(offsets[axis], full.shape[axis])
    return ctx.call("tile.store", [args[0], MakeTuple(offsets), *args[2:]], dict(call.kwargs)), None


def _dropped(args: Sequence[Expr], rank: int) -> list[int]:
    if len(args) <= 4:
        return []
    return sorted(int(static_int(d) or 0) % rank for d in tuple_elements(args[4]))


def result_axis_after_drop(pre_axis: int, dropped: Sequence[int], rank: int) -> int | None:
    """A pre-drop axis in the result of tile.slice(drop_dims): kept axes, padded back to 2-D with 1s."""
    if pre_axis in dropped:
        return None
    kept = [i for i in range(rank) if i not in dropped]
    pad = max(0, 2 - len(kept))
    return kept.index(pre_axis) + pad


def pre_drop_axis(result_axis: int, dropped: Sequence[int], rank: int) -> int | None:
    """The inverse: a result axis of tile.slice(drop_dims) in the source's axes (None for a padded 1)."""
    kept = [i for i in range(rank) if i not in dropped]
    pad = max(0, 2 - len(kept))
    return kept[result_axis - pad] if result_axis >= pad else None


def _slice(ctx: SplitLowering, call: Call, args: list[Expr]) -> tuple[Expr, int | None]:
    src = _tile(call.args[0])
    shape, offset = _dims(args[1]), _dims(args[2])
    valid = _dims(args[3]) if len(args) > 3 and tuple_elements(args[3]) else None
    rank = len(shape)
    dropped = _dropped(args, rank)
    split = ctx.split_axis(args[0])
    if split is not None:
        # A lane-local source: the window must span its split axis; the slice halves with it.
        if static_int(offset[split]) != 0 or not same_dim(shape[split], src.shape[split]):
            raise ctx.reject(f"tile.slice takes {shape_text(shape)} at {shape_text(offset)} of a tile split on "
                             f"dim {split}: a window of a split tile must span the split axis (offset 0, the "
                             f"whole {shape_text([src.shape[split]])}); slice before the split or along the "
                             f"other axis")
        axis = split
    else:
        axis = pre_drop_axis(ctx.dim, dropped, rank) if dropped else axis_for_rank(ctx, rank)
        if axis is None or static_int(shape[axis]) == 1:
            return _kept(call, args)
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
    result = result_axis_after_drop(axis, dropped, rank) if dropped else axis
    return ctx.call("tile.slice", new_args, dict(call.kwargs)), result


def _full(ctx: SplitLowering, call: Call, args: list[Expr]) -> tuple[Expr, int | None]:
    shape = _dims(args[0])
    axis = axis_for_rank(ctx, len(shape))
    if axis is None or static_int(shape[axis]) == 1:
        return _kept(call, args)
    shape[axis] = ctx.half(shape[axis])
    return ctx.call(call.op.name, [MakeTuple(shape), *args[1:]], dict(call.kwargs)), axis


def surviving_axis(src: Sequence[Expr], dst: Sequence[Expr], axis: int) -> int | None:
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


def _view(op: str):
    def split(ctx: SplitLowering, call: Call, args: list[Expr]) -> tuple[Expr, int | None]:
        src, dst = _tile(call.args[0]), _tile(call)
        source_axis = ctx.split_axis(args[0])
        if source_axis is not None:
            axis = surviving_axis(src.shape, dst.shape, source_axis)
            if axis is None:
                raise ctx.reject(f"{op} of {shape_text(src.shape)} to {shape_text(dst.shape)} moves the split axis "
                                 f"(dim {source_axis}) into other dims, which the lanes cannot share; reshape "
                                 f"before the split or keep the split axis a whole dim")
            shape = list(dst.shape)
            shape[axis] = ctx.half(shape[axis])
            new_args = list(args)
            if len(new_args) > 1:
                new_args[1] = MakeTuple(shape)
            return ctx.call(op, new_args, dict(call.kwargs)), axis
        # A full-width source: view it whole, then take this lane's part (docs/passes/lower_auto_vector_split.md, ops that describe a shape or an address).
        axis = axis_for_rank(ctx, len(dst.shape))
        if axis is None or static_int(dst.shape[axis]) == 1:
            return _kept(call, args)
        extent = static_int(dst.shape[axis])
        if extent is None:
            raise ctx.reject(f"{op} of a full-width tile to {shape_text(dst.shape)} with a runtime extent on the "
                             f"split axis: its per-lane slice needs a static half; load the value per lane instead")
        whole = ctx.bind(ctx.call(op, list(args), dict(call.kwargs)), "viewed")
        shape, offset = list(dst.shape), [ConstInt(0) for _ in dst.shape]
        offset[axis] = ctx.lane_offset(ConstInt(0), dst.shape[axis])
        shape[axis] = ctx.half(dst.shape[axis])
        return ctx.call("tile.slice", [whole, MakeTuple(shape), MakeTuple(offset)]), axis

    return split


def _positional(ctx: SplitLowering, call: Call, args: list[Expr]) -> tuple[Expr, int | None]:
    t = _tile(call)
    axis = axis_for_rank(ctx, len(t.shape))
    if axis is None or static_int(t.shape[axis]) == 1:
        return _kept(call, args)
    raise ctx.reject(f"{call.op.name} generates values from the element position, so halving its type on the split "
                     f"axis would give both lanes the first half's values: it cannot take part in automatic "
                     f"split-axis halving; move it out of the split function (compute it outside and pass it in)")


def split_forms() -> dict[str, SplitFormFn]:
    return {
        "tile.load": _load,
        "tile.store": _store,
        "tile.slice": _slice,
        "tile.full": _full,
        "tile.reshape": _view("tile.reshape"),
        "tile.reinterpret_view": _view("tile.reinterpret_view"),
        "tile.ci": _positional,
        "tile.random": _positional,
    }

"""Building blocks of the tile forms (the `tile_form` op interface: how ConvertTensorToTileOps lowers a
tensor op, docs/passes/convert_tensor_to_tile_ops.md), written against pypto_core.ops.tile_form.TileLowering."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import MemorySpace
from pypto_core.ir.expr import Call, ConstInt, Expr, MakeTuple
from pypto_core.ir.types import TensorType, TileType
from pypto_core.ops.build import static_int
from pypto_core.ops.tile_form import TileForm, TileLowering


def same(op: str) -> TileForm:
    """The tile op `op` on the same operands (tensors replaced by their tiles) and kwargs."""
    return TileForm(op=op)


def tile_of(ctx: TileLowering, operand: Expr) -> Expr:
    """A tensor operand's tile; a scalar (or an operand that is a tile already) as it is."""
    return ctx.tile(operand) if isinstance(operand.type, TensorType) else operand


def tile_type(e: Expr) -> TileType:
    t = e.type
    assert isinstance(t, TileType), t
    return t


def as_dtype(ctx: TileLowering, tile: Expr, dtype: DataType | None) -> Expr:
    """The tile cast to `dtype` (bound to a new variable) unless it has that dtype already."""
    if dtype is None or not isinstance(tile.type, TileType) or tile.type.dtype is dtype:
        return tile
    return ctx.bind(ctx.call("tile.cast", [tile], {"target_type": dtype}), "promoted")


def promoting(op: str) -> TileForm:
    """`op` on the tiles of the tensor operands, each first cast to the call's result dtype if it differs: a
    tensor op promotes (an FP16 tensor + 1.0 is FP32) while its tile op keeps the tile's dtype."""

    def lower_promoted(ctx: TileLowering, call: Call) -> Expr:
        want = call.type.dtype if isinstance(call.type, TensorType) else None
        # An operand computed earlier in the kernel is already a tile; it is cast like a tensor operand.
        args = [as_dtype(ctx, ctx.tile(a), want) if isinstance(a.type, (TensorType, TileType)) else a
                for a in call.args]
        return ctx.call(op, args, dict(call.kwargs))

    return TileForm(lower=lower_promoted)


def scratch(ctx: TileLowering, shape: Sequence[Expr], dtype: DataType, hint: str) -> Expr:
    """A scratch tile (a `tile.create` in Vec, as PyPTO's) bound before the lowered statement: the tmp operand a
    vector tile op needs."""
    return ctx.bind(ctx.call("tile.create", [MakeTuple(list(shape))], {"dtype": dtype, "target_memory": MemorySpace.Vec}),
                    hint)


def reshaped(ctx: TileLowering, tile: Expr, shape: Sequence[Expr], hint: str) -> Expr:
    """The tile (bound) reshaped to `shape`."""
    return ctx.call("tile.reshape", [ctx.bind(tile, hint), MakeTuple(list(shape))])


def const_dims(*values: int | Expr) -> MakeTuple:
    """A shape / offset operand of constants (INDEX) and expressions."""
    return MakeTuple([v if isinstance(v, Expr) else ConstInt(int(v)) for v in values])


def bound(ctx: TileLowering, op: str, args: Sequence[Expr], kwargs: dict[str, Any] | None, hint: str) -> Expr:
    """A call of `op` bound to a new variable before the lowered statement."""
    return ctx.bind(ctx.call(op, list(args), kwargs or {}), hint)


def static_2d(op: str, t: Any) -> tuple[int, int]:
    """The static [rows, cols] of a 2-D operand (a tile form that needs them)."""
    dims = [static_int(d) for d in t.shape]
    if len(dims) != 2 or any(d is None for d in dims):
        raise ValueError(f"{op}: the tile form needs a static 2-D operand, got {t}")
    return dims[0], dims[1]  # type: ignore[return-value]


def ramp(ctx: TileLowering, n: int, dtype: DataType) -> Expr:
    """[1, n]: 0, 1, ..., n - 1 (a tile.ci)."""
    return bound(ctx, "tile.ci", [ConstInt(0, dtype), const_dims(1, n)], {"dtype": dtype, "descending": False}, "ramp")


def flat_index(ctx: TileLowering, op: str, index: Expr, axis: int, cols: int) -> Expr:
    """Row-major flat indices into a [*, cols] table of `index` read along `axis` (torch.gather / scatter
    semantics, for the flat-index tile.gather / tile.scatter)."""
    t = tile_type(index)
    rows, icols = static_2d(op, t)
    dtype = t.dtype
    if axis == 1:  # flat = row * cols + index[row, j]
        if rows == 1:
            return index
        base = bound(ctx, "tile.reshape", [ramp(ctx, rows, dtype), const_dims(rows, 1)], None, "row_ramp")
        base = bound(ctx, "tile.muls", [base, ConstInt(cols, dtype)], None, "row_base")
        return bound(ctx, "tile.row_expand_add", [index, base], None, "flat_index")
    scaled = bound(ctx, "tile.muls", [index, ConstInt(cols, dtype)], None, "row_base")  # index[i, j] * cols + j
    if icols == 1:
        return scaled
    return bound(ctx, "tile.col_expand_add", [scaled, ramp(ctx, icols, dtype)], None, "flat_index")

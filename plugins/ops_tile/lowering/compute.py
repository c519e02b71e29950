"""Tile forms of the tensor compute ops: element-wise, casts, selects, reductions, broadcasts, matmul.

Most map one to one (`tensor.add` -> `tile.add`, same operands and kwargs). The others:
* a tensor-scalar op promotes (`tensor.adds` of an FP16 tensor and `1.0` is FP32, docs/plugins.md, OpDef fields) but its
  tile form keeps the tile's dtype, and `tile.div` takes one dtype only (OPS.md): a tensor operand
  whose dtype is not the result's is cast to it first (exact for the widening casts promotion makes);
  a tensor.div by a [1, N] / [M, 1] tensor is tile.col_expand_div / row_expand_div (tile.div does not
  broadcast).
* `tensor.maximum` / `minimum` with a scalar rhs are `tile.maximums` / `minimums` (promoting).
* `tensor.cmp` holds 0 / 1 in its promoted dtype, not a packed mask (OPS.md): it is `tile.cmp` /
  `tile.cmps` (the packed predicate) selecting between `tile.full` ones and zeros of the result's shape
  and dtype with `tile.sel` (whose scratch is a [1, 32] UINT8 tile, the size PyPTO's tile.sel asks for).
* exp / sqrt / recip / rsqrt of an integer tensor are FP32 (OPS.md): the tile is cast first.
  `tensor.rsqrt(high_precision=True)` is `tile.rsqrt(x, tmp)` with a scratch of x's shape (PyPTO's tile
  rsqrt takes the scratch instead of the flag); div / log / recip pass `high_precision` on.
* row reductions need a scratch tile of the operand's shape (tile.row_sum(x, tmp)); column
  reductions need none.
* `tensor.matmul`: `a_trans` / `b_trans` transpose the operand tile first (its memory space follows the
  matmul's demand through the transpose); the product is the accumulator dtype (FP32 / INT32), so a
  different `out_dtype` (or promoted dtype) is a `tile.cast` of the product; `c_matrix_nz` selects an
  accumulator layout, which values do not see.
"""

from __future__ import annotations

from pypto_core.ir.dtypes import DataType
from pypto_core.ir.expr import Call, ConstInt, Expr, MakeTuple
from pypto_core.ir.types import ScalarType, TensorType, TileType
from pypto_core.ops.build import static_int
from pypto_core.ops.tile_form import TileForm, TileLowering
from pypto_plugins.ops_tile.dsl.common import fill_value
from pypto_plugins.ops_tile.ops import tensor_compute, tensor_elementwise


def same(op: str) -> TileForm:
    return TileForm(op=op)


def _scratch(ctx: TileLowering, shape: list[Expr] | tuple[Expr, ...], dtype: DataType, hint: str) -> Expr:
    return ctx.bind(ctx.call("tile.create", [MakeTuple(list(shape))], {"dtype": dtype}), hint)


def promoting(op: str) -> TileForm:
    """`op` on the tiles of the tensor operands, each first cast to the call's result dtype if it differs."""

    def lower(ctx: TileLowering, call: Call) -> Expr:
        want = call.type.dtype if isinstance(call.type, TensorType) else None
        # An operand computed earlier in the kernel is already a tile; it is cast like a tensor operand.
        args = [_as_dtype(ctx, ctx.tile(a), want) if isinstance(a.type, (TensorType, TileType)) else a
                for a in call.args]
        return ctx.call(op, args, dict(call.kwargs))

    return TileForm(lower=lower)


def _as_dtype(ctx: TileLowering, tile: Expr, dtype: DataType | None) -> Expr:
    if dtype is None or not isinstance(tile.type, TileType) or tile.type.dtype is dtype:
        return tile
    return ctx.bind(ctx.call("tile.cast", [tile], {"target_type": dtype}), "promoted")


def _div(ctx: TileLowering, call: Call) -> Expr:
    """tile.div neither promotes nor broadcasts (OPS.md): cast both tiles to the result dtype; a [1, N] or
    [M, 1] divisor of a 2-D dividend is a column / row broadcast (tile.col_expand_div / row_expand_div)."""
    want = call.type.dtype if isinstance(call.type, TensorType) else None
    lhs, rhs = (_as_dtype(ctx, ctx.tile(a), want) for a in call.args)
    op = "tile.div"
    ls, rs = lhs.type.shape, rhs.type.shape  # type: ignore[attr-defined]
    if len(ls) == len(rs) == 2 and not (static_int(ls[0]) == 1 and static_int(ls[1]) == 1):
        if static_int(rs[0]) == 1 and static_int(ls[0]) != 1:
            op = "tile.col_expand_div"
        elif static_int(rs[1]) == 1 and static_int(ls[1]) != 1:
            op = "tile.row_expand_div"
    return ctx.call(op, [lhs, rhs])


def _tile_of(ctx: TileLowering, operand: Expr) -> Expr:
    return ctx.tile(operand) if isinstance(operand.type, TensorType) else operand


def _cmp(ctx: TileLowering, call: Call) -> Expr:
    lhs, rhs = call.args
    t = call.type
    assert isinstance(t, TensorType)
    on_tiles = not isinstance(rhs.type, ScalarType)  # an operand may be a tile already (tensor.full lowered)
    kwargs = {"cmp_type": call.kwargs.get("cmp_type", 0)}
    mask = ctx.bind(ctx.call("tile.cmp" if on_tiles else "tile.cmps",
                             [_tile_of(ctx, lhs), _tile_of(ctx, rhs) if on_tiles else rhs], kwargs), "cmp_mask")
    ones, zeros = (ctx.bind(ctx.call("tile.full", [MakeTuple(list(t.shape)), fill_value(v, t.dtype, None)],
                                     {"dtype": t.dtype}), hint) for v, hint in ((1, "cmp_true"), (0, "cmp_false")))
    tmp = _scratch(ctx, [ConstInt(1), ConstInt(32)], DataType.UINT8, "sel_tmp")
    return ctx.call("tile.sel", [mask, ones, zeros, tmp])


def _extremum(op: str) -> TileForm:
    """tensor.maximum / minimum: two tensors -> tile.maximum; a scalar rhs -> tile.maximums (promoting)."""
    on_scalar = promoting(f"tile.{op}s")

    def lower(ctx: TileLowering, call: Call) -> Expr:
        if isinstance(call.args[1].type, ScalarType):
            return on_scalar.apply(ctx, call)
        return ctx.call(f"tile.{op}", [_tile_of(ctx, a) for a in call.args])

    return TileForm(lower=lower)


def _rsqrt(ctx: TileLowering, call: Call) -> Expr:
    want = call.type.dtype if isinstance(call.type, TensorType) else None
    src = _as_dtype(ctx, ctx.tile(call.args[0]), want)
    if not call.kwargs.get("high_precision"):
        return ctx.call("tile.rsqrt", [src])
    t = src.type
    assert isinstance(t, TileType)
    return ctx.call("tile.rsqrt", [src, _scratch(ctx, t.shape, t.dtype, "rsqrt_tmp")])


def row_reduction(op: str) -> TileForm:
    def lower(ctx: TileLowering, call: Call) -> Expr:
        src = ctx.tile(call.args[0])
        t = src.type
        assert isinstance(t, TileType)
        tmp = _scratch(ctx, t.shape, t.dtype, "reduce_tmp")
        return ctx.call(op, [src, tmp])

    return TileForm(lower=lower)


def tile_forms() -> dict[str, TileForm]:
    forms: dict[str, TileForm] = {}
    for n in (*tensor_elementwise.BINARY, *tensor_elementwise.UNARY, "log", "cast"):
        forms[f"tensor.{n}"] = same(f"tile.{n}")
    for n in ("exp", "sqrt", "recip"):  # an integer operand gives FP32 (OPS.md)
        forms[f"tensor.{n}"] = promoting(f"tile.{n}")
    for n in tensor_elementwise.SCALAR:
        forms[f"tensor.{n}"] = promoting(f"tile.{n}")
    for n in tensor_elementwise.SCALAR_RHS:
        forms[f"tensor.{n}"] = _extremum(n)
    forms["tensor.div"] = TileForm(lower=_div)
    forms["tensor.rsqrt"] = TileForm(lower=_rsqrt)
    forms["tensor.cmp"] = TileForm(lower=_cmp)
    for n in tensor_compute.ROW:
        forms[f"tensor.{n}"] = row_reduction(f"tile.{n}")
    forms["tensor.row_argmax"] = row_reduction("tile.row_argmax")
    for n in tensor_compute.COL:
        forms[f"tensor.{n}"] = same(f"tile.{n}")
    for n in tensor_compute.EXPAND:
        forms[f"tensor.row_expand_{n}"] = same(f"tile.row_expand_{n}")
        forms[f"tensor.col_expand_{n}"] = same(f"tile.col_expand_{n}")
    # tensor.matmul / matmul_acc (with batched and 1-D forms): lowering/broadcast_reduce.py
    return forms

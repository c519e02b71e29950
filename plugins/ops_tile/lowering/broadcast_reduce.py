"""Pass rewrite rules of the broadcast_reduce ops (issue 14): tile forms of the tensor broadcasts and
reductions (they override lowering/compute.py's entries of the same op), and tensor.matmul's batched and
1-D forms.

* A broadcast is the tile op of the same name on the operand tiles.
* A tensor reduction reduces `axis` (row_*: -1, col_*: -2 when absent). On a tile the reduced axis must be
  the last (tile.row_*) or, for a 2-D operand, the first (tile.col_*); so `tensor.row_sum(x, axis=0)` of a
  2-D x is tile.col_sum. Other axes have no tile form (a ValueError naming the op). Row reductions and
  col_argmax / col_argmin get a scratch tile of the operand's shape; keep_dim=False reshapes the result.
* tensor.matmul: a 3-D (or deeper) operand pair is tile.batch_matmul (a_trans / b_trans transpose the last
  two axes of the operand tile first); a 1-D lhs is a [1, K] row and a 1-D rhs a [K, 1] column, the product
  reshaped back; the product is the accumulator dtype, so another out_dtype is a tile.cast.
* tensor.matmul_acc passes init_cond (a scalar) through to tile.matmul_acc; batched operands are
  tile.batch_matmul_acc (which has no init_cond).

Flatten rules (FlattenTileNdTo2D): tile.batch_matmul / batch_matmul_acc of N-D tiles have no one-call 2-D
form, so theirs is an expression: one tile.matmul (matmul_acc) per batch element on the [M, K] / [K, N] row
blocks of the merged operands, assembled into the merged [B * M, N] Acc result (static batch dims only;
a single-matrix rhs is one tile.matmul of the merged lhs rows).

Not done: a batched matmul with a_trans / b_trans lowers to a 3-D tile.transpose, which FlattenTileNdTo2D
cannot write in 2-D (per-block transposes nested in one expression get no cube-side memory demand, and
ExpandMixedKernel then rejects them), so such a kernel does not pass the default pipeline.
"""

from __future__ import annotations

from typing import Any

from pypto_core.ir.enums import CastMode, MemorySpace
from pypto_core.ir.expr import Call, ConstInt, Expr, MakeTuple
from pypto_core.ir.types import TensorType, TileType
from pypto_core.ops.build import shape_text, static_dims
from pypto_core.ops.registry import create_op_call
from pypto_core.ops.tile_form import TileForm, TileLowering
from pypto_plugins.ops_tile.ops import tensor_compute as tc
from pypto_plugins.ops_tile.ops.broadcast_reduce import EXPAND_NEW, expand_name

_KINDS = ("sum", "max", "min", "prod", "argmax", "argmin")
_COL_NEEDS_TMP = ("argmax", "argmin")


def _tile_type(e: Expr) -> TileType:
    t = e.type
    assert isinstance(t, TileType)
    return t


def _scratch(ctx: TileLowering, t: TileType, hint: str) -> Expr:
    return ctx.bind(ctx.call("tile.create", [MakeTuple(list(t.shape))], {"dtype": t.dtype}), hint)


def _reshaped(ctx: TileLowering, tile: Expr, shape: Any, hint: str) -> Expr:
    return ctx.call("tile.reshape", [ctx.bind(tile, hint), MakeTuple(list(shape))])


def reduction(kind: str, row: bool) -> TileForm:
    def lower(ctx: TileLowering, call: Call) -> Expr:
        src = ctx.tile(call.args[0])
        t = _tile_type(src)
        rank = len(t.shape)
        axis = call.kwargs.get("axis")
        axis = (-1 if row else -2) if axis is None else axis
        axis %= rank
        if rank >= 2 and axis == rank - 1:
            op, tmp = f"tile.row_{kind}", True
        elif rank == 2 and axis == 0:
            op, tmp = f"tile.col_{kind}", kind in _COL_NEEDS_TMP
        else:
            raise ValueError(f"{call.op.name}: a reduction of axis {axis} of a {rank}-D tensor has no tile form; "
                             f"tile reductions reduce the last axis (or the first of a 2-D tile)")
        args = [src, _scratch(ctx, t, "reduce_tmp")] if tmp else [src]
        out = ctx.call(op, args)
        if call.kwargs.get("keep_dim", True) is False:
            if not isinstance(call.type, TensorType):
                raise ValueError(f"{call.op.name}: a reduction to a scalar has no tile form; keep the dim "
                                 f"(keep_dim=True) and read element [0, 0]")
            return _reshaped(ctx, out, call.type.shape, "reduced")
        return out

    return TileForm(lower=lower)


def _transposed(ctx: TileLowering, operand: Expr, transpose: bool) -> Expr:
    tile = ctx.tile(operand)
    rank = len(_tile_type(tile).shape)
    if not transpose or rank < 2:
        return tile
    # Bound, so that the matmul's demand (Left / Right) reaches the load through the transpose.
    return ctx.bind(ctx.call("tile.transpose", [tile, ConstInt(rank - 2), ConstInt(rank - 1)]), "transposed")


def _as_matrix(ctx: TileLowering, tile: Expr, left: bool) -> Expr:
    """A 1-D operand as a [1, K] row (lhs) or a [K, 1] column (rhs)."""
    t = _tile_type(tile)
    if len(t.shape) != 1:
        return tile
    shape = [ConstInt(1), t.shape[0]] if left else [t.shape[0], ConstInt(1)]
    return ctx.bind(ctx.call("tile.reshape", [tile, MakeTuple(shape)]), "as_matrix")


def _matmul(ctx: TileLowering, call: Call) -> Expr:
    lhs = _transposed(ctx, call.args[0], bool(call.kwargs.get("a_trans")))
    rhs = _transposed(ctx, call.args[1], bool(call.kwargs.get("b_trans")))
    batched = len(_tile_type(lhs).shape) > 2 or len(_tile_type(rhs).shape) > 2
    if batched:
        product: Expr = ctx.call("tile.batch_matmul", [lhs, rhs])
    else:
        product = ctx.call("tile.matmul", [_as_matrix(ctx, lhs, True), _as_matrix(ctx, rhs, False)])
    assert isinstance(call.type, TensorType)
    if len(call.type.shape) != len(_tile_type(product).shape):
        if not call.type.shape:
            raise ValueError(f"{call.op.name}: a 1-D x 1-D product (a rank-0 tensor) has no tile form; reshape "
                             f"the operands to [1, K] and [K, 1]")
        product = _reshaped(ctx, product, call.type.shape, "matmul_acc")
    want = call.type.dtype
    if want is _tile_type(product).dtype:
        return product
    # The tensor op rounds its wide product to nearest-even (numpy), so the tile cast does too.
    return ctx.call("tile.cast", [ctx.bind(product, "matmul_acc")], {"target_type": want, "mode": int(CastMode.rint)})


def _matmul_acc(ctx: TileLowering, call: Call) -> Expr:
    acc = ctx.tile(call.args[0])
    lhs = _transposed(ctx, call.args[1], bool(call.kwargs.get("a_trans")))
    rhs = _transposed(ctx, call.args[2], bool(call.kwargs.get("b_trans")))
    rest = list(call.args[3:])
    if len(_tile_type(acc).shape) > 2:
        if rest:
            raise ValueError(f"{call.op.name}: a batched accumulate has no init_cond (tile.batch_matmul_acc)")
        return ctx.call("tile.batch_matmul_acc", [acc, lhs, rhs])
    return ctx.call("tile.matmul_acc", [acc, lhs, rhs, *rest])


def _batch_rows(batch: list[int], operand_batch: list[int], index: tuple[int, ...]) -> int:
    """The merged batch position (0-based, in units of one matrix) of an operand for a result batch index;
    a broadcast (size-1 or missing) operand dim reads its only matrix."""
    lead = len(batch) - len(operand_batch)
    pos = 0
    for axis, size in enumerate(operand_batch):
        pos = pos * size + (0 if size == 1 else index[lead + axis])
    return pos


def flatten_batch_matmul(call: Call, args: list[Expr]) -> Call:
    """FlattenTileNdTo2D of tile.batch_matmul / batch_matmul_acc: the merged rows are one [M, N] product per
    batch element, so the 2-D form assembles one tile.matmul (matmul_acc on the element's block of acc) of the
    matching [M, K] and [K, N] row blocks per element into an Acc tile (static batch dims only). A rank-2 (or
    single-matrix) rhs needs no blocks: one tile.matmul / matmul_acc of the merged lhs rows."""
    accumulate = call.op.name == "tile.batch_matmul_acc"
    first = 1 if accumulate else 0
    lhs_t, rhs_t, out_t = _tile_type(call.args[first]), _tile_type(call.args[first + 1]), _tile_type(call)
    shapes = [static_dims(t.shape) for t in (lhs_t, rhs_t, out_t)]
    if any(s is None for s in shapes):
        raise ValueError(f"a batched product of {shape_text(lhs_t.shape)} x {shape_text(rhs_t.shape)} needs static "
                         f"dims to be written as 2-D matmuls")
    lhs_s, rhs_s, out_s = shapes  # type: ignore[misc]
    batch, m, k, n = out_s[:-2], lhs_s[-2], lhs_s[-1], rhs_s[-1]
    lhs_b, rhs_b = lhs_s[:-2], rhs_s[:-2]
    lhs_flat, rhs_flat = args[first], args[first + 1]
    if all(d == 1 for d in rhs_b) and (not accumulate or len(lhs_b) == len(batch) and lhs_b == batch):
        operands = [args[0], lhs_flat, rhs_flat] if accumulate else [lhs_flat, rhs_flat]
        return create_op_call("tile.matmul_acc" if accumulate else "tile.matmul", operands, span=call.span)
    total = 1
    for d in batch:
        total *= d
    out: Expr = args[0] if accumulate else create_op_call(
        "tile.create", [MakeTuple([ConstInt(total * m), ConstInt(n)])],
        {"dtype": out_t.dtype, "target_memory": MemorySpace.Acc}, span=call.span)
    for flat in range(total):
        index, rest = [], flat
        for size in reversed(batch):
            index.append(rest % size)
            rest //= size
        index_t = tuple(reversed(index))
        lo, ro = _batch_rows(batch, lhs_b, index_t), _batch_rows(batch, rhs_b, index_t)
        lhs = create_op_call("tile.slice", [lhs_flat, _dims(m, k), _dims(lo * m, 0)], span=call.span)
        rhs = create_op_call("tile.slice", [rhs_flat, _dims(k, n), _dims(ro * k, 0)], span=call.span)
        if accumulate:
            block = create_op_call("tile.slice", [args[0], _dims(m, n), _dims(flat * m, 0)], span=call.span)
            product = create_op_call("tile.matmul_acc", [block, lhs, rhs], span=call.span)
        else:
            product = create_op_call("tile.matmul", [lhs, rhs], span=call.span)
        out = create_op_call("tile.assemble", [out, product, _dims(flat * m, 0)], span=call.span)
    assert isinstance(out, Call)
    return out


def _dims(*values: int) -> MakeTuple:
    return MakeTuple([ConstInt(v) for v in values])


def _same(op: str) -> TileForm:
    return TileForm(op=op)


def tile_forms() -> dict[str, TileForm]:
    forms: dict[str, TileForm] = {}
    for d in ("row", "col"):
        for n in (*EXPAND_NEW, *tc.EXPAND):
            name = expand_name(d, n)
            forms[f"tensor.{name}"] = _same(f"tile.{name}")
    for kind in _KINDS:
        forms[f"tensor.row_{kind}"] = reduction(kind, True)
        forms[f"tensor.col_{kind}"] = reduction(kind, False)
    forms["tensor.matmul"] = TileForm(lower=_matmul)
    forms["tensor.matmul_acc"] = TileForm(lower=_matmul_acc)
    return forms


def flatten_rules() -> dict[str, Any]:
    return {"tile.batch_matmul": flatten_batch_matmul, "tile.batch_matmul_acc": flatten_batch_matmul}

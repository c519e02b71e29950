"""Cube matmul: tile.matmul, matmul_acc, matmul_bias, gemv, gemv_acc, gemv_bias, batch_matmul,
batch_matmul_acc, and tensor.matmul / matmul_acc (the MX matmuls are matmul_mx.py).

Tiles: Left [M, K] x Right [K, N] -> Acc [M, N] (docs/reference/ops.md); the accumulator is FP32 for float
operands and INT32 for integer ones, and lhs and rhs share a dtype. The `_acc` forms accumulate into `acc`
(arg 0 ReadWrite; matmul_acc returns acc's type, which InferTileMemorySpace moves to Acc; a true BOOL
init_cond overwrites acc instead); the `_bias` forms add a [1, N] Bias row of the accumulator dtype. gemv
multiplies one row: [1, K] x [K, N] -> an Acc tile of 16 rows (the cube's fractal height) whose row 0 is
valid; its `acc_phase` (where the step sits in a split-K accumulation) is recorded for codegen only.
batch_matmul broadcasts the leading dims. tile.matmul takes the optional kwargs `out_dtype` (the dtype the
Acc result is converted to: FP32 / FP16 / BF16 for float operands, INT32 for integer ones), `a_trans` (lhs
holds [K, M]) and `b_trans` (rhs holds [N, K]); tile.matmul_acc `a_trans` / `b_trans`; all recorded only
when given, so PyPTO's IR, which has none, prints unchanged. The valid region of a product is [lhs valid
rows, rhs valid cols] (compact=normal when the rows are narrowed).

Memory: lhs Left, rhs Right, acc Acc, bias Bias; the result is Acc. The deducers do not check operand
spaces: InferTileMemorySpace moves a Mat (or Vec) operand into place and TileMemoryInferred reports what it
could not.

Tensors: `tensor.matmul(lhs, rhs)` takes rank >= 1 operands (1-D x 1-D -> rank 0, 2-D x 1-D -> [M],
1-D x 2-D -> [N], else broadcast batch dims + [M, N], as numpy's matmul; a transposed 1-D operand is not
transposed), K checked when static, in out_dtype or the promoted dtype; its flags `a_trans`, `b_trans`,
`c_matrix_nz` are always recorded (PyPTO records them, so an unwritten one still prints).
`tensor.matmul_acc(acc, lhs, rhs[, init_cond])` takes rank >= 2 operands of one dtype and an accumulator of
the accumulation dtype. Tile forms: a 3-D (or deeper) operand pair is tile.batch_matmul (a_trans / b_trans
transpose the operand tile first); a 1-D lhs is a [1, K] row and a 1-D rhs a [K, 1] column, the product
reshaped back; another out_dtype than the accumulator's is a tile.cast (round to nearest even, as numpy);
c_matrix_nz selects an accumulator layout, which values do not see. A batched matmul with a_trans / b_trans
lowers to a 3-D tile.transpose, which FlattenTileNdTo2D writes as one 2-D transpose per page.

2-D forms (FlattenTileNdTo2D, docs/passes/flatten_tile_nd_to_2d.md): tile.batch_matmul / batch_matmul_acc
of N-D tiles are one tile.matmul (matmul_acc) per batch element on each operand's own page (a row block, or a
column block of a tile.transpose_view operand; a broadcast operand reuses its page), stored per batch when the
next statement stores the product, else assembled (static dims only).

Semantics: float operands are multiplied and accumulated in FP32, integer ones in INT64 and narrowed to the
accumulator dtype; only the valid K extent both operands share is summed, so poison in the padding of K
never reaches the product; gemv's rows below row 0 are poison.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from pypto_core.analysis.memory import tile_bytes
from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import CastMode, MemorySpace
from pypto_core.ir.expr import Call, ConstBool, ConstInt, Expr, MakeTuple, Var
from pypto_core.ir.span import Span
from pypto_core.ir.types import TensorType, TileType, Type, dims_equal
from pypto_core.ops.build import (
    broadcast_shapes,
    dims_sum,
    dsl_entry,
    operand_kind,
    promote_dtypes,
    reject_tensor_tile_mix,
    require_rank,
    require_scalar,
    require_tensor,
    require_tile,
    same_dim,
    shape_text,
    static_dims,
    static_int,
    to_bool,
    to_dtype,
    to_expr,
    tuple_elements,
)
from pypto_core.ops.family import OpFamily
from pypto_core.ops.opdef import ArgSpec, Effect, KwargSpec, OpDef, OutputMemory
from pypto_core.ops.registry import create_op_call
from pypto_core.ops.tile_form import TileForm, TileLowering
from pypto_plugins.ops_tile.common.dsl import dsl_named, registered, set_if, tile_only
from pypto_plugins.ops_tile.common.flatten import Flatten2DContext, column_batching
from pypto_plugins.ops_tile.common.shapes import require_min_rank, static_mismatch
from pypto_plugins.ops_tile.common.tile_forms import const_dims, reshaped, tile_type
from pypto_plugins.ops_tile.common.views import product_view, valid_view

family = OpFamily("matmul", semantics="pypto_plugins.ops_tile.semantics.matmul")

LEFT, RIGHT, ACC, BIAS = MemorySpace.Left, MemorySpace.Right, MemorySpace.Acc, MemorySpace.Bias
GEMV_ROWS = 16  # a gemv result is one cube fractal tall; only row 0 is valid
_GEMV_DTYPES = (DataType.INT8, DataType.FP16, DataType.BF16, DataType.FP32)
ACC_PHASES = ("unspecified", "partial", "final")
# Output dtypes the Acc result may be converted to (the fixpipe's conversions), by operand kind.
FLOAT_OUT = (DataType.FP32, DataType.FP16, DataType.BF16)
INT_OUT = (DataType.INT32,)


# -- tile type rules ----------------------------------------------------------------------------------------
def accumulator_dtype(op: str, lhs: DataType, rhs: DataType) -> DataType:
    if lhs is not rhs:
        raise TypeError(f"{op}: lhs is {lhs.name} but rhs is {rhs.name}; cast one of them")
    if lhs.is_float():
        return DataType.FP32
    if lhs.is_int():
        return DataType.INT32
    raise TypeError(f"{op}: cannot multiply {lhs.name} matrices")


def _matrix(op: str, e: Expr, what: str) -> TileType:
    t = require_tile(op, e, what)
    require_rank(op, t.shape, 2, what)
    return t


def _batched(op: str, e: Expr, what: str) -> TileType:
    t = require_tile(op, e, what)
    if len(t.shape) < 2:
        raise TypeError(f"{op}: {what} must be at least 2-D, got {shape_text(t.shape)}")
    return t


def _inner_dims(op: str, lhs: TileType, rhs: TileType) -> None:
    if not same_dim(lhs.shape[-1], rhs.shape[-2]):
        raise TypeError(f"{op}: inner dims differ: lhs {shape_text(lhs.shape)} x rhs {shape_text(rhs.shape)}")


def _out_dtype(op: str, acc: DataType, out: DataType | None) -> DataType:
    if out is None:
        return acc
    allowed = FLOAT_OUT if acc is DataType.FP32 else INT_OUT
    if out not in allowed:
        raise TypeError(f"{op}: out_dtype {out.name} is not a conversion of the {acc.name} accumulator; allowed: "
                        f"{', '.join(d.name for d in allowed)}")
    return out


def oriented(t: TileType, trans: bool) -> tuple[list[Expr], list[Expr]]:
    """(shape, valid) of an operand as the product sees it: the two dims swapped when transposed."""
    shape, valid = list(t.shape), list(t.valid_shape)
    return (shape[::-1], valid[::-1]) if trans else (shape, valid)


def product_type(op: str, lhs_e: Expr, rhs_e: Expr, kwargs: Mapping[str, Any] | None = None) -> TileType:
    kwargs = kwargs or {}
    lhs, rhs = _matrix(op, lhs_e, "lhs"), _matrix(op, rhs_e, "rhs")
    (m, k), (vm, vk) = oriented(lhs, bool(kwargs.get("a_trans")))
    (k2, n), (vk2, vn) = oriented(rhs, bool(kwargs.get("b_trans")))
    if not same_dim(k, k2):
        raise TypeError(f"{op}: inner dims differ: lhs {shape_text(lhs.shape)} x rhs {shape_text(rhs.shape)}"
                        f"{' (a_trans / b_trans swap an operand)' if kwargs.get('a_trans') or kwargs.get('b_trans') else ''}")
    sk, sk2 = static_int(vk), static_int(vk2)
    if sk is not None and sk2 is not None and sk > sk2:
        raise TypeError(f"{op}: lhs has {sk} valid K columns but rhs only {sk2} valid K rows")
    shape, valid = [m, n], [vm, vn]
    dtype = _out_dtype(op, accumulator_dtype(op, lhs.dtype, rhs.dtype), kwargs.get("out_dtype"))
    view = product_view(shape, valid, not dims_equal(valid, shape))
    return TileType(shape, dtype, None, view, ACC)


def _check_acc(op: str, acc: TileType, product: TileType, what: str) -> None:
    if not dims_equal(acc.shape, product.shape) or acc.dtype is not product.dtype:
        raise TypeError(f"{op}: acc is {shape_text(acc.shape)} {acc.dtype.name} but {what} is "
                        f"{shape_text(product.shape)} {product.dtype.name}")


def _check_bias(op: str, e: Expr, product: TileType) -> None:
    """A bias is one [1, N] row of the accumulator dtype, added to every row of the product."""
    bias = _matrix(op, e, "bias")
    if static_int(bias.valid_shape[0]) not in (1, None) or not same_dim(bias.shape[1], product.shape[1]):
        raise TypeError(f"{op}: bias must be one [1, N] row for a {shape_text(product.shape)} product, got "
                        f"{shape_text(bias.shape)} (valid {shape_text(bias.valid_shape)})")
    if bias.dtype is not product.dtype:
        raise TypeError(f"{op}: bias is {bias.dtype.name} but the accumulator is {product.dtype.name}")


def deduce_matmul(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    return product_type("tile.matmul", args[0], args[1], kwargs)


def _valid_within(op: str, product: TileType, acc: TileType) -> None:
    for p, a in zip(product.valid_shape, acc.valid_shape):
        sp, sa = static_int(p), static_int(a)
        if sp is not None and sa is not None and sp > sa:
            raise TypeError(f"{op}: the product's valid region {shape_text(product.valid_shape)} exceeds acc's "
                            f"{shape_text(acc.valid_shape)}")


def deduce_matmul_acc(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tile.matmul_acc"
    acc = _matrix(op, args[0], "acc")
    product = product_type(op, args[1], args[2], kwargs)
    _check_acc(op, acc, product, "lhs x rhs")
    _valid_within(op, product, acc)
    if len(args) > 3 and not require_scalar(op, args[3], "init_cond").dtype.is_bool():
        raise TypeError(f"{op}: init_cond must be a BOOL scalar")
    # acc's own type: an unplaced (Vec) accumulator stays reassignable; InferTileMemorySpace moves it to Acc.
    return acc


def deduce_matmul_bias(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    product = product_type("tile.matmul_bias", args[0], args[1])
    _check_bias("tile.matmul_bias", args[2], product)
    return product


def gemv_type(op: str, lhs_e: Expr, rhs_e: Expr) -> TileType:
    """[1, K] x [K, N] -> Acc [16, N] with valid [1, N valid of rhs]."""
    lhs, rhs = _matrix(op, lhs_e, "lhs"), _matrix(op, rhs_e, "rhs")
    if static_int(lhs.shape[0]) != 1 or static_int(lhs.valid_shape[0]) not in (1, None):
        raise TypeError(f"{op}: lhs must be one row [1, K], got {shape_text(lhs.shape)} (valid "
                        f"{shape_text(lhs.valid_shape)}); use tile.matmul for more rows")
    _inner_dims(op, lhs, rhs)
    dtype = accumulator_dtype(op, lhs.dtype, rhs.dtype)
    if lhs.dtype not in _GEMV_DTYPES:
        raise TypeError(f"{op}: operands must be one of {', '.join(d.name for d in _GEMV_DTYPES)}, got "
                        f"{lhs.dtype.name}")
    shape = [ConstInt(GEMV_ROWS), rhs.shape[1]]
    valid = [ConstInt(1), rhs.valid_shape[1]]
    return TileType(shape, dtype, None, valid_view(valid, shape, ACC), ACC)


def deduce_gemv(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    return gemv_type("tile.gemv", args[0], args[1])


def deduce_gemv_acc(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tile.gemv_acc"
    acc = _matrix(op, args[0], "acc")
    product = gemv_type(op, args[1], args[2])
    _check_acc(op, acc, product, "the gemv of lhs and rhs")
    if not dims_equal(acc.valid_shape, product.valid_shape):
        raise TypeError(f"{op}: acc's valid region {shape_text(acc.valid_shape)} differs from the gemv's "
                        f"{shape_text(product.valid_shape)}")
    return product


def deduce_gemv_bias(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    product = gemv_type("tile.gemv_bias", args[0], args[1])
    _check_bias("tile.gemv_bias", args[2], product)
    return product


def batch_product_type(op: str, lhs_e: Expr, rhs_e: Expr) -> TileType:
    """[..., M, K] x [..., K, N] -> Acc [bcast(...), M, N], all of it valid."""
    lhs, rhs = _batched(op, lhs_e, "lhs"), _batched(op, rhs_e, "rhs")
    _inner_dims(op, lhs, rhs)
    batch = broadcast_shapes(lhs.shape[:-2], rhs.shape[:-2], op)
    shape = [*batch, lhs.shape[-2], rhs.shape[-1]]
    return TileType(shape, accumulator_dtype(op, lhs.dtype, rhs.dtype), None, None, ACC)


def deduce_batch_matmul(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    return batch_product_type("tile.batch_matmul", args[0], args[1])


def deduce_batch_matmul_acc(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tile.batch_matmul_acc"
    acc = _batched(op, args[0], "acc")
    _check_acc(op, acc, batch_product_type(op, args[1], args[2]), "lhs x rhs")
    return TileType(acc.shape, acc.dtype, None, None, ACC)


# -- tensor type rules --------------------------------------------------------------------------------------
def _mk(t: TensorType, transpose: bool) -> tuple[Expr | None, Expr]:
    """(M, K) of the left operand: a 1-D one has no M."""
    if len(t.shape) == 1:
        return None, t.shape[0]
    return (t.shape[-1], t.shape[-2]) if transpose else (t.shape[-2], t.shape[-1])


def _kn(t: TensorType, transpose: bool) -> tuple[Expr, Expr | None]:
    """(K, N) of the right operand: a 1-D one has no N."""
    if len(t.shape) == 1:
        return t.shape[0], None
    return (t.shape[-1], t.shape[-2]) if transpose else (t.shape[-2], t.shape[-1])


def tensor_product_shape(op: str, a: TensorType, b: TensorType, kwargs: Mapping[str, Any]) -> list[Expr]:
    a_trans, b_trans = bool(kwargs.get("a_trans")), bool(kwargs.get("b_trans"))
    m, k = _mk(a, a_trans)
    k2, n = _kn(b, b_trans)
    if static_mismatch(k, k2):
        raise TypeError(f"{op}: inner dims differ: lhs {shape_text(a.shape)} x rhs {shape_text(b.shape)} "
                        f"(a_trans={a_trans}, b_trans={b_trans}): K {static_int(k)} vs {static_int(k2)}")
    batch = broadcast_shapes(a.shape[:-2], b.shape[:-2], op)
    return [*batch, *(d for d in (m, n) if d is not None)]


def deduce_tensor_matmul(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tensor.matmul"
    a, b = require_tensor(op, args[0], "lhs"), require_tensor(op, args[1], "rhs")
    require_min_rank(op, a.shape, 1, "lhs")
    require_min_rank(op, b.shape, 1, "rhs")
    dtype = kwargs.get("out_dtype") or promote_dtypes(a.dtype, b.dtype, op)
    return TensorType(tensor_product_shape(op, a, b, kwargs), dtype)


def tensor_accumulator_dtype(dtype: DataType) -> DataType:
    return DataType.FP32 if dtype.is_float() else DataType.INT32


def deduce_tensor_matmul_acc(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tensor.matmul_acc"
    acc = require_tensor(op, args[0], "acc")
    a, b = require_tensor(op, args[1], "lhs"), require_tensor(op, args[2], "rhs")
    for t, what in ((acc, "acc"), (a, "lhs"), (b, "rhs")):
        require_min_rank(op, t.shape, 2, what)
    if len(args) > 3 and require_scalar(op, args[3], "init_cond").dtype is not DataType.BOOL:
        raise TypeError(f"{op}: init_cond must be a BOOL scalar, got {args[3].type.dtype.name}")  # type: ignore[attr-defined]
    if a.dtype is not b.dtype:
        raise TypeError(f"{op}: lhs is {a.dtype.name} but rhs is {b.dtype.name}; both must have one dtype")
    want = tensor_accumulator_dtype(a.dtype)
    if acc.dtype is not want:
        raise TypeError(f"{op}: acc is {acc.dtype.name}; a product of {a.dtype.name} operands accumulates in "
                        f"{want.name}")
    product = tensor_product_shape(op, a, b, kwargs)
    if len(product) != len(acc.shape) or any(static_mismatch(x, y) for x, y in zip(product, acc.shape)):
        raise TypeError(f"{op}: acc is {shape_text(acc.shape)} but lhs x rhs is {shape_text(product)}")
    return TensorType(acc.shape, acc.dtype)


# -- ops ----------------------------------------------------------------------------------------------------
_A_TRANS = KwargSpec("a_trans", (bool,), False, doc="lhs holds [K, M]: multiply its transpose.")
_B_TRANS = KwargSpec("b_trans", (bool,), False, doc="rhs holds [N, K]: multiply its transpose.")
_OUT_DTYPE = KwargSpec("out_dtype", (DataType,), doc="The dtype the Acc result is converted to.")
_ACC_PHASE = KwargSpec("acc_phase", (str,), "unspecified", choices=ACC_PHASES,
                       doc="Where this step sits in a split-K accumulation (codegen only).")
_ACC_OUT = OutputMemory(fixed=ACC)
_PRODUCT = {0: (LEFT,), 1: (RIGHT,)}
_ACCUMULATE = {0: (ACC,), 1: (LEFT,), 2: (RIGHT,)}
_BIASED = {0: (LEFT,), 1: (RIGHT,), 2: (BIAS,)}
_LHS_RHS = (ArgSpec("lhs"), ArgSpec("rhs"))
_ACC_LHS_RHS = (ArgSpec("acc"), *_LHS_RHS)
_LHS_RHS_BIAS = (*_LHS_RHS, ArgSpec("bias"))
_READ_WRITE_ACC = {0: Effect.READ_WRITE}
# PyPTO records tensor.matmul's defaulted flags in the IR, so an unwritten one still prints.
_TENSOR_MATMUL_FLAGS = tuple(KwargSpec(n, (bool,), False, recorded=True) for n in ("a_trans", "b_trans", "c_matrix_nz"))


def _cube_op(name: str, deduce: Any, args: tuple[ArgSpec, ...], input_memory: Mapping[int, tuple[MemorySpace, ...]],
             doc: str, **extra: Any) -> OpDef:
    return OpDef(f"tile.{name}", deduce, args=args, output_memory=_ACC_OUT, input_memory=input_memory, doc=doc,
                 **extra)


family.op(_cube_op("matmul", deduce_matmul, _LHS_RHS, _PRODUCT, "Left x Right -> Acc (FP32 / INT32, or out_dtype); "
                   "a_trans / b_trans multiply a transposed operand.", kwargs=(_OUT_DTYPE, _A_TRANS, _B_TRANS)),
          dsl="tile.matmul")
family.op(_cube_op("matmul_acc", deduce_matmul_acc, (*_ACC_LHS_RHS, ArgSpec("init_cond", optional=True)), _ACCUMULATE,
                   "acc += Left x Right (acc := the product when init_cond is true); a_trans / b_trans as matmul.",
                   kwargs=(_A_TRANS, _B_TRANS), effects=_READ_WRITE_ACC), dsl="tile.matmul_acc")
family.op(_cube_op("matmul_bias", deduce_matmul_bias, _LHS_RHS_BIAS, _BIASED, "Left x Right + a Bias row -> Acc."),
          dsl="tile.matmul_bias")
family.op(_cube_op("gemv", deduce_gemv, _LHS_RHS, _PRODUCT, "One Left row x Right -> row 0 of an Acc tile.",
                   kwargs=(_ACC_PHASE,)))
family.op(_cube_op("gemv_acc", deduce_gemv_acc, _ACC_LHS_RHS, _ACCUMULATE, "acc += one Left row x Right.",
                   kwargs=(_ACC_PHASE,), effects=_READ_WRITE_ACC))
family.op(_cube_op("gemv_bias", deduce_gemv_bias, _LHS_RHS_BIAS, _BIASED, "One Left row x Right + a Bias row.",
                   kwargs=(_ACC_PHASE,)))
family.op(_cube_op("batch_matmul", deduce_batch_matmul, _LHS_RHS, _PRODUCT, "Batched Left x Right -> Acc (batch dims "
                   "broadcast)."), dsl="tile.batch_matmul")
family.op(_cube_op("batch_matmul_acc", deduce_batch_matmul_acc, _ACC_LHS_RHS, _ACCUMULATE,
                   "acc += batched Left x Right.", effects=_READ_WRITE_ACC), dsl="tile.batch_matmul_acc")
family.op(OpDef("tensor.matmul", deduce_tensor_matmul, args=(ArgSpec("lhs"), ArgSpec("rhs")),
                kwargs=(KwargSpec("out_dtype", (DataType,)), *_TENSOR_MATMUL_FLAGS),
                doc="lhs x rhs (operands optionally transposed; 1-D operands and broadcast batch dims as in numpy's "
                    "matmul) in out_dtype or the promoted dtype."))
family.op(OpDef("tensor.matmul_acc", deduce_tensor_matmul_acc,
                args=(ArgSpec("acc"), ArgSpec("lhs"), ArgSpec("rhs"), ArgSpec("init_cond", optional=True)),
                kwargs=(KwargSpec("a_trans", (bool,), False), KwargSpec("b_trans", (bool,), False)),
                effects={0: Effect.READ_WRITE},
                doc="acc + lhs x rhs (acc FP32 / INT32); a true init_cond overwrites acc with lhs x rhs instead."))


# -- tile forms ---------------------------------------------------------------------------------------------
def _transposed(ctx: TileLowering, operand: Expr, transpose: bool) -> Expr:
    tile = ctx.tile(operand)
    rank = len(tile_type(tile).shape)
    if not transpose or rank < 2:
        return tile
    # Bound, so that the matmul's demand (Left / Right) reaches the load through the transpose.
    return ctx.bind(ctx.call("tile.transpose", [tile, ConstInt(rank - 2), ConstInt(rank - 1)]), "transposed")


def _as_matrix(ctx: TileLowering, tile: Expr, left: bool) -> Expr:
    """A 1-D operand as a [1, K] row (lhs) or a [K, 1] column (rhs)."""
    t = tile_type(tile)
    if len(t.shape) != 1:
        return tile
    shape = [ConstInt(1), t.shape[0]] if left else [t.shape[0], ConstInt(1)]
    return ctx.bind(ctx.call("tile.reshape", [tile, MakeTuple(shape)]), "as_matrix")


def lower_tensor_matmul(ctx: TileLowering, call: Call) -> Expr:
    lhs = _transposed(ctx, call.args[0], bool(call.kwargs.get("a_trans")))
    rhs = _transposed(ctx, call.args[1], bool(call.kwargs.get("b_trans")))
    batched = len(tile_type(lhs).shape) > 2 or len(tile_type(rhs).shape) > 2
    if batched:
        out: Expr = ctx.call("tile.batch_matmul", [lhs, rhs])
    else:
        out = ctx.call("tile.matmul", [_as_matrix(ctx, lhs, True), _as_matrix(ctx, rhs, False)])
    assert isinstance(call.type, TensorType)
    if len(call.type.shape) != len(tile_type(out).shape):
        if not call.type.shape:
            raise ValueError(f"{call.op.name}: a 1-D x 1-D product (a rank-0 tensor) has no tile form; reshape "
                             f"the operands to [1, K] and [K, 1]")
        out = reshaped(ctx, out, call.type.shape, "matmul_acc")
    want = call.type.dtype
    if want is tile_type(out).dtype:
        return out
    # The tensor op rounds its wide product to nearest-even (numpy), so the tile cast does too.
    return ctx.call("tile.cast", [ctx.bind(out, "matmul_acc")], {"target_type": want, "mode": int(CastMode.rint)})


# PyPTO's conversion declares lhs and rhs in Mat (transposed by a_trans / b_trans): the pass bridges them
# (docs/passes/convert_tensor_to_tile_ops.md, rules), so the transpose below only sees already-viewed operands.
family.implement("tile_form", "tensor.matmul", TileForm(lower=lower_tensor_matmul, operand_spaces=(
    (0, MemorySpace.Mat, "a_trans"), (1, MemorySpace.Mat, "b_trans"))))


def lower_tensor_matmul_acc(ctx: TileLowering, call: Call) -> Expr:
    """init_cond (a scalar) passes through to tile.matmul_acc; batched operands are tile.batch_matmul_acc
    (which has no init_cond)."""
    acc = ctx.tile(call.args[0])
    lhs = _transposed(ctx, call.args[1], bool(call.kwargs.get("a_trans")))
    rhs = _transposed(ctx, call.args[2], bool(call.kwargs.get("b_trans")))
    rest = list(call.args[3:])
    if len(tile_type(acc).shape) > 2:
        if rest:
            raise ValueError(f"{call.op.name}: a batched accumulate has no init_cond (tile.batch_matmul_acc)")
        return ctx.call("tile.batch_matmul_acc", [acc, lhs, rhs])
    return ctx.call("tile.matmul_acc", [acc, lhs, rhs, *rest])


# The accumulator's load keeps no space: InferTileMemorySpace places it where the cube accumulates (PyPTO: Vec).
family.implement("tile_form", "tensor.matmul_acc", TileForm(lower=lower_tensor_matmul_acc, operand_spaces=(
    (0, None, None), (1, MemorySpace.Mat, "a_trans"), (2, MemorySpace.Mat, "b_trans"))))


# -- 2-D forms (FlattenTileNdTo2D, docs/passes/flatten_tile_nd_to_2d.md) ------------------------------------
def _operand_batch(batch: Sequence[int], operand_batch: Sequence[int], index: Sequence[int]) -> int:
    """The operand's own flat batch index for a result batch index; a broadcast (size-1 or missing) operand
    dim reads its only matrix."""
    lead = len(batch) - len(operand_batch)
    pos = 0
    for axis, size in enumerate(operand_batch):
        pos = pos * size + (0 if size == 1 else index[lead + axis])
    return pos


def _batch_index(batch: Sequence[int], flat: int) -> tuple[int, ...]:
    index = []
    for size in reversed(batch):
        index.append(flat % size)
        flat //= size
    return tuple(reversed(index))


def _peeled(ctx: Flatten2DContext, flat: Expr, dims: list[int]) -> Expr:
    """The operand under its batch-only tile.reshape wrappers: a reshape keeping the last two dims and the batch
    product (`[2, 3, M, K]` -> `[6, M, K]`) leaves every page where it was, so the product reads its source
    (a transpose_view's column batches, a natural load's per-batch reloads); the wrapper goes if unused."""
    while True:
        wrapper = ctx.definition(flat)
        if wrapper is None or wrapper.op.name != "tile.reshape":
            return flat
        source = wrapper.args[0]
        src_t = ctx.original_type(source)
        src = static_dims(src_t.shape) if isinstance(src_t, TileType) else None
        if src is None or len(src) < 3 or src[-2:] != dims[-2:] or math.prod(src[:-2]) != math.prod(dims[:-2]):
            return flat
        ctx.drop_if_unused(flat)
        flat, dims = source, src


class _Paged:
    """One operand of a batched product, flattened: page j is its j-th [rows, cols] matrix. A plain operand is
    row-batched (page j at row j*rows); a tile.transpose_view of a flattened [B*cols, rows] operand is
    column-batched (page j at column j*cols). `per_batch`: each page is re-loaded from the operand's natural
    2-D load (`<side>_pbview2d_<j>`, `<side>_pbload_<j>`, `<side>_pbview_<j>`) instead of sliced from it."""

    def __init__(self, ctx: Flatten2DContext, flat: Expr, original: TileType, dims: list[int], side: str) -> None:
        self.ctx, self.flat, self.side = ctx, _peeled(ctx, flat, dims), side
        self.batch, self.rows, self.cols = dims[:-2], dims[-2], dims[-1]
        self.column_batched = ctx.column_batched(self.flat) and len(dims) > 2
        self.per_batch = False

    def natural_load(self) -> tuple[Call, Call] | None:
        """(the 2-D load under this operand, the tensor.view it reads) when the operand is such a load or a
        transpose_view of one (FlattenTileNdTo2D's form of a natural NZ Mat load)."""
        load_var = self.flat
        load = self.ctx.definition(load_var)
        if load is not None and load.op.name == "tile.transpose_view":
            load_var = load.args[0]
            load = self.ctx.definition(load_var)
        if load is None or load.op.name != "tile.load" or len(tuple_elements(load.args[1])) != 2:
            return None
        view = self.ctx.definition(load.args[0])
        if view is None or view.op.name != "tensor.view":
            return None
        return load, view

    def reload_per_batch(self) -> bool:
        """Switch to per-batch reloads when the operand comes from a natural 2-D load; the whole operand (its
        transpose_view, load and view) is dropped if nothing else reads it."""
        found = self.natural_load()
        if found is None or len(self.batch) == 0:
            return False
        load, view = found
        self.per_batch = True
        self.ctx.drop_if_unused(self.flat)
        self.ctx.drop_if_unused(load.args[0])
        if load is not self.ctx.definition(self.flat):
            self.ctx.drop_if_unused(self.ctx.definition(self.flat).args[0])  # type: ignore[union-attr]
        return True

    def page(self, j: int, span: Span | None) -> Expr:
        if self.per_batch:
            return self._reloaded(j, span)
        offset = const_dims(0, j * self.cols) if self.column_batched else const_dims(j * self.rows, 0)
        return self.ctx.bind(create_op_call("tile.slice", [self.flat, const_dims(self.rows, self.cols), offset],
                                            span=span), f"{self.side}_slice_{j}")

    def _reloaded(self, j: int, span: Span | None) -> Expr:
        found = self.natural_load()
        assert found is not None
        load, view = found
        rows, cols = (self.cols, self.rows) if self.column_batched else (self.rows, self.cols)
        row0, col0 = tuple_elements(load.args[1])
        pbview = self.ctx.bind(view, f"{self.side}_pbview2d_{j}")
        at = MakeTuple([dims_sum([row0, ConstInt(j * rows)]), col0])
        pbload: Expr = self.ctx.bind(create_op_call("tile.load", [pbview, at, const_dims(rows, cols),
                                                                   const_dims(rows, cols)],
                                                    dict(load.kwargs), span=span), f"{self.side}_pbload_{j}")
        if self.column_batched:
            pbload = self.ctx.bind(create_op_call("tile.transpose_view", [pbload], span=span),
                                   f"{self.side}_pbview_{j}")
        return pbload


def _reload_past_mat(ctx: Flatten2DContext, lhs: _Paged, rhs: _Paged, lhs_t: TileType, rhs_t: TileType) -> None:
    """Operands kept whole unless together they exceed the backend's Mat size: then each is re-loaded per batch
    (docs/passes/flatten_tile_nd_to_2d.md, batched products)."""
    if ctx.mat_capacity is None:
        return
    sizes = [tile_bytes(t, space=MemorySpace.Mat) for t in (lhs_t, rhs_t)]
    if any(b is None for b in sizes) or sum(sizes) <= ctx.mat_capacity:  # type: ignore[arg-type]
        return
    lhs.reload_per_batch()
    rhs.reload_per_batch()


@family.implements("flatten_2d", "tile.batch_matmul", "tile.batch_matmul_acc")
@column_batching("reads")
def flatten_batch_matmul(call: Call, args: Sequence[Expr], ctx: Flatten2DContext) -> Expr:
    """One 2-D tile.matmul of the matching [M, K] and [K, N] pages per batch element (static dims only).

    batch_matmul: when the next statement stores the product (and nothing else reads it) each page's product
    is stored into its batch window directly; a single batch is the one matmul; else the products, moved to
    Acc, are assembled into a [B*M, N] tile. batch_matmul_acc accumulates each page into its [M, N] block of
    the (already 2-D) accumulator and re-assembles it."""
    accumulate = call.op.name == "tile.batch_matmul_acc"
    first = 1 if accumulate else 0
    lhs_t, rhs_t, out_t = tile_type(call.args[first]), tile_type(call.args[first + 1]), tile_type(call)
    shapes = [static_dims(t.shape) for t in (lhs_t, rhs_t, out_t)]
    if any(s is None for s in shapes):
        raise ValueError(f"a batched product of {shape_text(lhs_t.shape)} x {shape_text(rhs_t.shape)} has a dynamic "
                         f"(non-constant) dimension, which cannot be flattened to 2D; give it static dims")
    lhs_s, rhs_s, out_s = shapes  # type: ignore[misc]
    batch, m, n = out_s[:-2], out_s[-2], out_s[-1]
    total = math.prod(batch) if batch else 1
    lhs = _Paged(ctx, args[first], lhs_t, lhs_s, "lhs")
    rhs = _Paged(ctx, args[first + 1], rhs_t, rhs_s, "rhs")
    _reload_past_mat(ctx, lhs, rhs, lhs_t, rhs_t)

    def pages(i: int) -> tuple[Expr, Expr]:
        index = _batch_index(batch, i)
        return (lhs.page(_operand_batch(batch, lhs.batch, index), call.span),
                rhs.page(_operand_batch(batch, rhs.batch, index), call.span))

    if accumulate:
        return _accumulated(call, args[0], total, m, n, pages, ctx)
    fused = _fused_store(call, batch, ctx)
    if fused is not None:
        return fused(pages)
    product = create_op_call("tile.matmul", list(pages(0)), span=call.span) if total == 1 else None
    if product is not None and tile_type(product).dtype is out_t.dtype:
        return product
    name = ctx.result_name("batch_matmul")
    # Assembled in Acc, on the cube side (PyPTO moves each product to Vec first): a split kernel's AIV lanes
    # then read the whole product through one boundary (docs/passes/flatten_tile_nd_to_2d.md, deviations).
    result: Expr = ctx.bind(create_op_call("tile.create", [const_dims(total * m, n)],
                                           {"dtype": out_t.dtype, "target_memory": MemorySpace.Acc},
                                           span=call.span), name)
    for i in range(total):
        block: Expr = ctx.bind(product if product is not None else
                               create_op_call("tile.matmul", list(pages(i)), span=call.span), f"matmul_{i}")
        if tile_type(block).dtype is not out_t.dtype:
            block = ctx.bind(create_op_call("tile.cast", [block], {"target_type": out_t.dtype,
                                                                  "mode": int(CastMode.round)}, span=call.span),
                             f"matmul_cast_{i}")
        result = ctx.bind(create_op_call("tile.assemble", [result, block, const_dims(i * m, 0)], span=call.span),
                          name)
    return result


def _accumulated(call: Call, acc: Expr, total: int, m: int, n: int, pages: Any, ctx: Flatten2DContext) -> Expr:
    acc_t = tile_type(acc)
    if len(acc_t.shape) != 2 or static_dims(acc_t.shape) != [total * m, n]:
        raise ValueError(f"the accumulator of a batched accumulate must be the 2-D [{total * m}, {n}] tile "
                         f"([B*M, N]), got {shape_text(acc_t.shape)}; accumulate into a tile of the product's "
                         f"shape")
    if total == 1:
        return create_op_call("tile.matmul_acc", [acc, *pages(0)], span=call.span)
    name = ctx.result_name("acc")
    result = acc
    for i in range(total):
        lhs, rhs = pages(i)
        block = ctx.bind(create_op_call("tile.slice", [acc, const_dims(m, n), const_dims(i * m, 0)], span=call.span),
                         f"acc_page_{i}")
        block = ctx.bind(create_op_call("tile.matmul_acc", [block, lhs, rhs], span=call.span), f"matmul_acc_{i}")
        result = ctx.bind(create_op_call("tile.assemble", [result, block, const_dims(i * m, 0)], span=call.span),
                          name)
    return result


def _fused_store(call: Call, batch: Sequence[int], ctx: Flatten2DContext) -> Any:
    """When the next statement stores the whole product into a tensor with the batch dims: a writer of one
    [M, N] store per batch into its window (chained through the target), else None."""
    store = ctx.following_call()
    if store is None or store.op.name != "tile.store" or len(store.args) != 3 or not ctx.is_result(store.args[0]):
        return None
    target_t = store.args[2].type
    if not isinstance(target_t, TensorType) or len(target_t.shape) < len(batch) + 2:
        return None
    offsets = list(tuple_elements(store.args[1]))
    rank = len(target_t.shape)
    lead = rank - 2 - len(batch)
    m, n = tile_type(call).shape[-2:]
    name = ctx.following_name()

    def write(pages: Any) -> Expr:
        target = store.args[2]
        for i in range(math.prod(batch) if batch else 1):
            index = _batch_index(batch, i)
            block = ctx.bind(create_op_call("tile.matmul", list(pages(i)), span=call.span), f"matmul_{i}")
            at = [dims_sum([o, ConstInt(index[d - lead])]) if lead <= d < rank - 2 and index[d - lead] else o
                  for d, o in enumerate(offsets)]
            operands = [block, MakeTuple(at), target]
            if rank > 2:
                operands.append(const_dims(*([1] * (rank - 2)), m, n))
            target = ctx.bind(create_op_call("tile.store", operands, dict(store.kwargs), span=store.span),
                              f"{name}_{i}")
        assert isinstance(target, Var)
        ctx.consume_following(target)
        return target

    return write


# -- DSL ----------------------------------------------------------------------------------------------------
def _acc_phase(acc_phase: Any) -> dict[str, Any]:
    kwargs: dict[str, Any] = {}
    set_if(kwargs, "acc_phase", acc_phase, "unspecified")
    return kwargs


@family.dsl("tile.gemv")
@dsl_entry
def gemv(lhs: Expr, rhs: Expr, acc_phase: str = "unspecified", span: Span | None = None) -> Call:
    return create_op_call("tile.gemv", [lhs, rhs], _acc_phase(acc_phase), span=span)


@family.dsl("tile.gemv_acc")
@dsl_entry
def gemv_acc(acc: Expr, lhs: Expr, rhs: Expr, acc_phase: str = "unspecified", span: Span | None = None) -> Call:
    return create_op_call("tile.gemv_acc", [acc, lhs, rhs], _acc_phase(acc_phase), span=span)


@family.dsl("tile.gemv_bias")
@dsl_entry
def gemv_bias(lhs: Expr, rhs: Expr, bias: Expr, acc_phase: str = "unspecified", span: Span | None = None) -> Call:
    return create_op_call("tile.gemv_bias", [lhs, rhs, bias], _acc_phase(acc_phase), span=span)


def _acc_args(acc: Expr, lhs: Expr, rhs: Expr, init_cond: Any, span: Span | None) -> list[Expr]:
    return [acc, lhs, rhs] if init_cond is None else [acc, lhs, rhs, to_expr(init_cond, span)]


def _trans(a_trans: Any, b_trans: Any) -> dict[str, Any]:
    """The transposition flags that are set (a False flag is the default: not recorded)."""
    return {k: True for k, v in (("a_trans", a_trans), ("b_trans", b_trans)) if to_bool(v, k)}


@family.dsl("tensor.matmul")
@dsl_named("matmul")
def tensor_matmul_builder(a: Expr, b: Expr, out_dtype: DataType | None = None, a_trans: Any = False,
                          b_trans: Any = False, c_matrix_nz: Any = False, span: Span | None = None) -> Call:
    """Every flag is recorded, in PyPTO's order (`pl.tensor.matmul(y, y, a_trans=False, ...)`)."""
    kwargs: dict[str, Any] = {} if out_dtype is None else {"out_dtype": to_dtype(out_dtype, "out_dtype")}
    for key, value in (("a_trans", a_trans), ("b_trans", b_trans), ("c_matrix_nz", c_matrix_nz)):
        kwargs[key] = to_bool(value, key)
    return create_op_call("tensor.matmul", [a, b], kwargs, span=span)


@family.dsl("tensor.matmul_acc")
@dsl_named("tensor_matmul_acc")
def tensor_matmul_acc_builder(acc: Expr, lhs: Expr, rhs: Expr, a_trans: Any = False, b_trans: Any = False,
                              init_cond: Any = None, span: Span | None = None) -> Call:
    """PyPTO's `pl.tensor.matmul_acc(acc, lhs, rhs, a_trans=False, b_trans=False, init_cond=None)`. The printed
    text puts the IR operand init_cond 4th (docs/dsl.md, the printed form): an expression there is init_cond."""
    if isinstance(a_trans, Expr) and not isinstance(a_trans, ConstBool) and init_cond is None:
        a_trans, init_cond = False, a_trans
    return create_op_call("tensor.matmul_acc", _acc_args(acc, lhs, rhs, init_cond, span), _trans(a_trans, b_trans),
                          span=span)

_TILE_MATMUL, _TILE_MATMUL_ACC = registered("tile.matmul"), registered("tile.matmul_acc")


@family.dsl("matmul", builder=False)
@dsl_entry
def matmul(lhs: Expr, rhs: Expr, out_dtype: Any = None, a_trans: Any = False, b_trans: Any = False,
           c_matrix_nz: Any = False, span: Span | None = None) -> Expr:
    """`pl.matmul`: on tiles, tile.matmul with the kwargs that differ from their defaults (so PyPTO's plain
    `tile.matmul(a, b)` stays as it is); `c_matrix_nz` picks an Acc layout values do not see and is not recorded
    on a tile."""
    reject_tensor_tile_mix(lhs, rhs)
    if operand_kind(lhs) == "Tile":
        to_bool(c_matrix_nz, "c_matrix_nz")  # an Acc layout choice: no value sees it
        return _TILE_MATMUL(lhs, rhs, span=span, out_dtype=out_dtype, a_trans=a_trans, b_trans=b_trans)
    return tensor_matmul_builder(lhs, rhs, out_dtype, a_trans, b_trans, c_matrix_nz, span=span)


@family.dsl("matmul_acc", builder=False)
@dsl_entry
def matmul_acc(acc: Expr, lhs: Expr, rhs: Expr, a_trans: Any = False, b_trans: Any = False, init_cond: Any = None,
               span: Span | None = None) -> Expr:
    reject_tensor_tile_mix(acc, lhs, rhs)
    if operand_kind(acc) == "Tile":
        return _TILE_MATMUL_ACC(acc, lhs, rhs, init_cond, span=span, a_trans=a_trans, b_trans=b_trans)
    return tensor_matmul_acc_builder(acc, lhs, rhs, a_trans, b_trans, init_cond, span=span)


for _name in ("matmul_bias", "gemv", "gemv_acc", "gemv_bias", "batch_matmul"):
    family.dsl_function(_name, tile_only(_name, registered(f"tile.{_name}")))


# Memory planning facts (docs/memory_planning.md): where a result's buffer lives, which operands it must not share.
family.set_traits("tile.matmul_acc", "tile.gemv_acc", "tile.batch_matmul_acc", output_reuses_input=0)

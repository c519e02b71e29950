"""Cube matmul family (OPS.md "tile: Matmul"): matmul, matmul_acc, matmul_bias, gemv, gemv_acc,
gemv_bias, batch_matmul and batch_matmul_acc.

Left [M, K] x Right [K, N] -> Acc [M, N] (docs/reference/ops.md). The accumulator dtype is FP32 for float
inputs and INT32 for integer inputs. The `_acc` forms accumulate into `acc` (arg 0 ReadWrite); the
`_bias` forms add a [1, N] Bias row. gemv multiplies one row: [1, K] x [K, N] -> an Acc tile of 16
rows (the cube's fractal height) whose row 0 is valid. batch_matmul broadcasts the leading dims.

Memory (`input_memory`, OPS.md `mem:` lines): lhs Left, rhs Right, acc Acc, bias Bias; the result is
Acc. The deducers do not check operand spaces: InferTileMemorySpace moves a Mat (or Vec) operand
into place and TileMemoryInferred reports what it could not.

Transposed operands and the output dtype (`pl.matmul(..., out_dtype=, a_trans=, b_trans=)` on tiles, OPS.md
py lines of pl.matmul / pl.matmul_acc): tile.matmul takes the optional kwargs `out_dtype`, `a_trans`,
`b_trans` and tile.matmul_acc `a_trans`, `b_trans`, recorded only when given (so PyPTO's IR, which has
none, prints unchanged). `a_trans`: lhs holds [K, M] and Left x Right multiplies lhs^T; `b_trans`: rhs
holds [N, K]. `out_dtype` is the dtype the Acc result is converted to (FP32 / FP16 / BF16 for float
operands, INT32 for integer ones). matmul_bias, gemv* and batch_matmul* have no such kwargs in OPS.md.

Choices of pypto's own, where PyPTO's documents are silent: lhs and rhs must share a dtype; matmul's valid region is [lhs valid
rows, rhs valid cols] (compact=normal when the rows are narrowed, OPS.md); matmul_acc returns acc's
type (OPS.md: in Acc; InferTileMemorySpace moves it there); gemv_acc the gemv result's; init_cond (when given) is a BOOL scalar; a
bias must be [1, N] with the accumulator dtype; gemv's `acc_phase` is recorded for codegen and does not
change the type.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import CompactMode, MemorySpace
from pypto_core.ir.expr import ConstInt, Expr
from pypto_core.ir.types import TileType, TileView, Type, dims_equal
from pypto_core.ops.build import (
    broadcast_shapes,
    require_rank,
    require_scalar,
    require_tile,
    same_dim,
    shape_text,
    static_int,
)
from pypto_core.ops.opdef import ArgSpec, Effect, KwargSpec, OpDef, OutputMemory
from pypto_plugins.ops_tile.ops.views import valid_view

LEFT, RIGHT, ACC, BIAS = MemorySpace.Left, MemorySpace.Right, MemorySpace.Acc, MemorySpace.Bias
GEMV_ROWS = 16  # a gemv result is one cube fractal tall; only row 0 is valid
_GEMV_DTYPES = (DataType.INT8, DataType.FP16, DataType.BF16, DataType.FP32)
ACC_PHASES = ("unspecified", "partial", "final")


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


# Output dtypes the Acc result may be converted to (the fixpipe's conversions), by operand kind.
FLOAT_OUT = (DataType.FP32, DataType.FP16, DataType.BF16)
INT_OUT = (DataType.INT32,)


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


def narrowed_view(shape: list[Expr], valid: list[Expr], partial: bool) -> TileView | None:
    """The Acc view of a product: the implicit one narrowed to `valid`; compact=normal when rows are narrowed."""
    view = valid_view(valid, shape, ACC) if partial else None
    if view is not None and not same_dim(valid[0], shape[0]):
        view = view.with_fields(compact=CompactMode.normal)
    return view


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
    view = narrowed_view(shape, valid, not dims_equal(valid, shape))
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


def _op(name: str, deduce: Any, args: tuple[ArgSpec, ...], input_memory: Mapping[int, tuple[MemorySpace, ...]],
        doc: str, **extra: Any) -> OpDef:
    return OpDef(f"tile.{name}", deduce, args=args, output_memory=_ACC_OUT, input_memory=input_memory, doc=doc,
                 **extra)


OPDEFS = [
    _op("matmul", deduce_matmul, _LHS_RHS, _PRODUCT, "Left x Right -> Acc (FP32 / INT32, or out_dtype); a_trans / "
        "b_trans multiply a transposed operand.", kwargs=(_OUT_DTYPE, _A_TRANS, _B_TRANS)),
    _op("matmul_acc", deduce_matmul_acc, (*_ACC_LHS_RHS, ArgSpec("init_cond", optional=True)), _ACCUMULATE,
        "acc += Left x Right (acc := the product when init_cond is true); a_trans / b_trans as matmul.",
        kwargs=(_A_TRANS, _B_TRANS), effects=_READ_WRITE_ACC),
    _op("matmul_bias", deduce_matmul_bias, _LHS_RHS_BIAS, _BIASED, "Left x Right + a Bias row -> Acc."),
    _op("gemv", deduce_gemv, _LHS_RHS, _PRODUCT, "One Left row x Right -> row 0 of an Acc tile.",
        kwargs=(_ACC_PHASE,)),
    _op("gemv_acc", deduce_gemv_acc, _ACC_LHS_RHS, _ACCUMULATE, "acc += one Left row x Right.",
        kwargs=(_ACC_PHASE,), effects=_READ_WRITE_ACC),
    _op("gemv_bias", deduce_gemv_bias, _LHS_RHS_BIAS, _BIASED, "One Left row x Right + a Bias row.",
        kwargs=(_ACC_PHASE,)),
    _op("batch_matmul", deduce_batch_matmul, _LHS_RHS, _PRODUCT, "Batched Left x Right -> Acc (batch dims "
        "broadcast)."),
    _op("batch_matmul_acc", deduce_batch_matmul_acc, _ACC_LHS_RHS, _ACCUMULATE, "acc += batched Left x Right.",
        effects=_READ_WRITE_ACC),
]

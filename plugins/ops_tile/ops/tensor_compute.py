"""Tensor matmul, reductions and row / column broadcasts (docs/reference/ops.md; OPS.md "tensor:" sections).

IR layouts: `tensor.matmul(lhs, rhs)` kwargs `out_dtype` (when given), `a_trans`, `b_trans`, `c_matrix_nz`
(always recorded, so they print: docs/reference/ops.md); `tensor.matmul_acc(acc, lhs, rhs[, init_cond])` kwargs
`a_trans`, `b_trans` (arg 0 ReadWrite); `tensor.row_sum(x)` (row_max, row_min; row_argmax -> INT32)
reduces axis -1, `tensor.col_sum(x)` (col_max, col_min) axis -2, both with optional kwargs `axis` and
`keep_dim` (absent: the default axis, keep_dim true; OPS.md); `tensor.row_expand_mul(x, v)` (v [..., M, 1])
and `tensor.col_expand_mul(x, v)` (v [..., 1, N]), also _add/_sub/_div. The ops PyPTO adds to these
families are in ops/broadcast_reduce.py and share the deducers below.

Result rules (OPS.md): a reduction keeps the reduced axis as 1 (keep_dim) or drops it, a Scalar when no
axis is left, and carries the operand's valid extents of the kept dims; matmul takes rank >= 1 operands
(1-D x 1-D -> rank 0, 2-D x 1-D -> [M], 1-D x 2-D -> [N], else broadcast batch dims + [M, N]), K is
checked when static; matmul_acc takes rank >= 2 operands of one dtype and an accumulator of the
accumulation dtype (FP32 for floats, INT32 for integers). Dtypes: `tensor.row_min` takes INT16 / INT32 /
FP16 / FP32 operands; `tensor.row_expand_add` one dtype of INT8 / INT16 / INT32 / FP16 / FP32; other
broadcasts promote.

Choices where OPS.md is silent: a transposed 1-D matmul operand is not transposed (a vector has no
second axis); in an N-D x 1-D product the 1-D side contributes no M (N) dim, as in numpy; without
out_dtype the product has the promoted input dtype.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pypto_core.ir.dtypes import DataType
from pypto_core.ir.expr import ConstInt, Expr
from pypto_core.ir.types import ScalarType, TensorType, TensorView, Type, dims_equal
from pypto_core.ops.build import (
    broadcast_shapes,
    promote_dtypes,
    require_dtype_in,
    require_scalar,
    require_tensor,
    shape_text,
    static_int,
)
from pypto_core.ops.opdef import ArgSpec, Effect, KwargSpec, OpDef, OpTraits

ROW = ("row_sum", "row_max", "row_min")
COL = ("col_sum", "col_max", "col_min")
EXPAND = ("add", "sub", "mul", "div")
# OPS.md tensor.row_min: "input dtype in {INT16,INT32,FP16,FP32}".
ROW_MIN_DTYPES = (DataType.INT16, DataType.INT32, DataType.FP16, DataType.FP32)
# OPS.md tensor.row_expand_add: "same dtype in {INT8,INT16,INT32,FP16,FP32}".
ROW_EXPAND_ADD_DTYPES = (DataType.INT8, DataType.INT16, DataType.INT32, DataType.FP16, DataType.FP32)


def require_min_rank(op: str, dims: Sequence[Expr], rank: int, what: str) -> None:
    if len(dims) < rank:
        raise TypeError(f"{op}: {what} must be at least {rank}-D, got {len(dims)}-D {shape_text(dims)}")


def tensor_valid(t: TensorType) -> tuple[Expr, ...]:
    view = t.tensor_view
    return view.valid_shape if view is not None and view.valid_shape else t.shape


def _static_mismatch(a: Expr, b: Expr) -> bool:
    x, y = static_int(a), static_int(b)
    return x is not None and y is not None and x != y


# -- matmul ----------------------------------------------------------------------------------------
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


def product_shape(op: str, a: TensorType, b: TensorType, kwargs: Mapping[str, Any]) -> list[Expr]:
    a_trans, b_trans = bool(kwargs.get("a_trans")), bool(kwargs.get("b_trans"))
    m, k = _mk(a, a_trans)
    k2, n = _kn(b, b_trans)
    if _static_mismatch(k, k2):
        raise TypeError(f"{op}: inner dims differ: lhs {shape_text(a.shape)} x rhs {shape_text(b.shape)} "
                        f"(a_trans={a_trans}, b_trans={b_trans}): K {static_int(k)} vs {static_int(k2)}")
    batch = broadcast_shapes(a.shape[:-2], b.shape[:-2], op)
    return [*batch, *(d for d in (m, n) if d is not None)]


def deduce_matmul(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tensor.matmul"
    a, b = require_tensor(op, args[0], "lhs"), require_tensor(op, args[1], "rhs")
    require_min_rank(op, a.shape, 1, "lhs")
    require_min_rank(op, b.shape, 1, "rhs")
    dtype = kwargs.get("out_dtype") or promote_dtypes(a.dtype, b.dtype, op)
    return TensorType(product_shape(op, a, b, kwargs), dtype)


def accumulator_dtype(dtype: DataType) -> DataType:
    return DataType.FP32 if dtype.is_float() else DataType.INT32


def deduce_matmul_acc(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tensor.matmul_acc"
    acc = require_tensor(op, args[0], "acc")
    a, b = require_tensor(op, args[1], "lhs"), require_tensor(op, args[2], "rhs")
    for t, what in ((acc, "acc"), (a, "lhs"), (b, "rhs")):
        require_min_rank(op, t.shape, 2, what)
    if len(args) > 3 and require_scalar(op, args[3], "init_cond").dtype is not DataType.BOOL:
        raise TypeError(f"{op}: init_cond must be a BOOL scalar, got {args[3].type.dtype.name}")  # type: ignore[attr-defined]
    if a.dtype is not b.dtype:
        raise TypeError(f"{op}: lhs is {a.dtype.name} but rhs is {b.dtype.name}; both must have one dtype")
    want = accumulator_dtype(a.dtype)
    if acc.dtype is not want:
        raise TypeError(f"{op}: acc is {acc.dtype.name}; a product of {a.dtype.name} operands accumulates in "
                        f"{want.name}")
    product = product_shape(op, a, b, kwargs)
    if len(product) != len(acc.shape) or any(_static_mismatch(x, y) for x, y in zip(product, acc.shape)):
        raise TypeError(f"{op}: acc is {shape_text(acc.shape)} but lhs x rhs is {shape_text(product)}")
    return TensorType(acc.shape, acc.dtype)


# -- reductions ------------------------------------------------------------------------------------
def reduce_deducer(op: str, default_axis: int, dtype: DataType | None = None,
                   allowed: tuple[DataType, ...] | None = None, min_rank: int = 1):
    """OPS.md: `axis` (default -1 for row_*, -2 for col_*), `keep_dim` (default true)."""

    def deduce(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
        src = require_tensor(op, args[0], "the operand")
        require_min_rank(op, src.shape, min_rank, "the operand")
        if allowed is not None:
            require_dtype_in(op, src.dtype, allowed, "the operand")
        rank = len(src.shape)
        axis = kwargs.get("axis", default_axis)
        if not -rank <= axis < rank:
            raise ValueError(f"{op}: axis {axis} is out of range for a {rank}-D operand {shape_text(src.shape)}")
        axis %= rank
        keep = kwargs.get("keep_dim", True)
        shape, valid = list(src.shape), list(tensor_valid(src))
        if keep:
            shape[axis] = valid[axis] = ConstInt(1)
        else:
            del shape[axis], valid[axis]
        result_dtype = dtype or src.dtype
        if not shape:
            return ScalarType(result_dtype)
        view = None if dims_equal(shape, valid) else TensorView(valid_shape=valid)
        return TensorType(shape, result_dtype, None, view)

    return deduce


REDUCE_KWARGS = (KwargSpec("axis", (int,), doc="the axis to reduce (row_*: -1, col_*: -2 when absent)"),
                 KwargSpec("keep_dim", (bool,), doc="keep the reduced axis as 1 (true when absent)"))


# -- broadcasts ------------------------------------------------------------------------------------
def expand_deducer(op: str, axis: int, same_dtypes: tuple[DataType, ...] | None = None):
    """axis 0: v [..., M, 1] per row; axis 1: v [..., 1, N] per column (of the last two dims)."""

    def deduce(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
        src, vec = require_tensor(op, args[0], "the tensor"), require_tensor(op, args[1], "the vector")
        require_min_rank(op, src.shape, 2, "the tensor")
        require_min_rank(op, vec.shape, 2, "the vector")
        if axis == 0:
            ok = static_int(vec.shape[-1]) == 1 and not _static_mismatch(vec.shape[-2], src.shape[-2])
        else:
            ok = static_int(vec.shape[-2]) == 1 and not _static_mismatch(vec.shape[-1], src.shape[-1])
        if not ok:
            want = "[M, 1]" if axis == 0 else "[1, N]"
            raise TypeError(f"{op}: the vector must be {want} for a {shape_text(src.shape)} tensor, got "
                            f"{shape_text(vec.shape)}")
        if same_dtypes is not None:
            require_dtype_in(op, src.dtype, same_dtypes, "the tensor")
            if vec.dtype is not src.dtype:
                raise TypeError(f"{op}: the vector is {vec.dtype.name} but the tensor is {src.dtype.name}; both "
                                f"must have one dtype")
            return TensorType(src.shape, src.dtype)
        return TensorType(src.shape, promote_dtypes(src.dtype, vec.dtype, op))

    return deduce


_TRANS = (KwargSpec("a_trans", (bool,), False), KwargSpec("b_trans", (bool,), False))
# PyPTO records tensor.matmul's defaulted flags in the IR (docs/reference/ops.md), so an unwritten one still prints.
_MATMUL_FLAGS = tuple(KwargSpec(n, (bool,), False, recorded=True) for n in ("a_trans", "b_trans", "c_matrix_nz"))
_WHAT = {"sum": "Sum", "max": "Maximum", "min": "Minimum", "prod": "Product"}
_VERB = {"add": "plus", "sub": "minus", "mul": "times", "div": "divided by"}


def row_reduce_op(n: str, dtype: DataType | None = None, allowed: tuple[DataType, ...] | None = None,
                  doc: str | None = None) -> OpDef:
    return OpDef(f"tensor.{n}", reduce_deducer(f"tensor.{n}", -1, dtype, allowed), args=(ArgSpec("input"),),
                 kwargs=REDUCE_KWARGS, traits=OpTraits(reduction_axes=(1,)),
                 doc=doc or f"{_WHAT[n[4:]]} along `axis` (default -1: each row) -> [..., 1] (keep_dim) or the "
                            f"axis dropped.")


def col_reduce_op(n: str, dtype: DataType | None = None, doc: str | None = None) -> OpDef:
    return OpDef(f"tensor.{n}", reduce_deducer(f"tensor.{n}", -2, dtype, min_rank=2), args=(ArgSpec("input"),),
                 kwargs=REDUCE_KWARGS, traits=OpTraits(reduction_axes=(0,)),
                 doc=doc or f"{_WHAT[n[4:]]} along `axis` (default -2: each column) -> [..., 1, N] (keep_dim) or "
                            f"the axis dropped.")


OPDEFS = [
    OpDef("tensor.matmul", deduce_matmul, args=(ArgSpec("lhs"), ArgSpec("rhs")),
          kwargs=(KwargSpec("out_dtype", (DataType,)), *_MATMUL_FLAGS),
          doc="lhs x rhs (operands optionally transposed; 1-D operands and broadcast batch dims as in numpy's "
              "matmul) in out_dtype or the promoted dtype."),
    OpDef("tensor.matmul_acc", deduce_matmul_acc,
          args=(ArgSpec("acc"), ArgSpec("lhs"), ArgSpec("rhs"), ArgSpec("init_cond", optional=True)),
          kwargs=_TRANS, effects={0: Effect.READ_WRITE},
          doc="acc + lhs x rhs (acc FP32 / INT32); a true init_cond overwrites acc with lhs x rhs instead."),
    *[row_reduce_op(n, allowed=ROW_MIN_DTYPES if n == "row_min" else None) for n in ROW],
    row_reduce_op("row_argmax", DataType.INT32,
                  doc="INT32 index of the maximum along `axis` (default -1), the first on ties."),
    *[col_reduce_op(n) for n in COL],
    OpDef("tensor.row_expand_add", expand_deducer("tensor.row_expand_add", 0, ROW_EXPAND_ADD_DTYPES),
          args=(ArgSpec("tensor"), ArgSpec("row_vec")), doc="tensor[..., i, j] plus row_vec[..., i, 0] (one dtype)."),
    *[OpDef(f"tensor.row_expand_{n}", expand_deducer(f"tensor.row_expand_{n}", 0),
            args=(ArgSpec("tensor"), ArgSpec("row_vec")),
            doc=f"tensor[..., i, j] {_VERB[n]} row_vec[..., i, 0] (promoted dtype).") for n in EXPAND if n != "add"],
    *[OpDef(f"tensor.col_expand_{n}", expand_deducer(f"tensor.col_expand_{n}", 1),
            args=(ArgSpec("tensor"), ArgSpec("col_vec")),
            doc=f"tensor[..., i, j] {_VERB[n]} col_vec[..., 0, j] (promoted dtype).") for n in EXPAND],
]

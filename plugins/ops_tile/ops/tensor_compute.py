"""Tensor matmul, reductions and row / column broadcasts (API.md 3.2, 3.5).

IR layouts: `tensor.matmul(a, b)` kwargs `out_dtype` (when given), `a_trans`, `b_trans`, `c_matrix_nz`
(always recorded, so they print: API.md 3.5); `tensor.matmul_acc(acc, a, b)` kwargs `a_trans`, `b_trans` (arg 0 ReadWrite);
`tensor.row_sum(x)` (row_max, row_min; row_argmax -> INT32) -> [M, 1]; `tensor.col_sum(x)` (col_max, col_min) -> [1, N];
`tensor.row_expand_mul(x, v)` (v [M, 1]) and `tensor.col_expand_mul(x, v)` (v [1, N]), also _add/_sub/_div.

Dtypes (OPS.md `result:` lines): `tensor.row_min` takes INT16 / INT32 / FP16 / FP32 operands.

Choices where API.md is silent: tensor reductions need no tmp (converting them to tile ops
allocates one); without out_dtype the product has the promoted input dtype.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pypto_core.ir.dtypes import DataType
from pypto_core.ir.expr import ConstInt, Expr
from pypto_core.ir.types import TensorType, Type, dims_equal
from pypto_core.ops.build import (
    promote_dtypes,
    require_dtype_in,
    require_rank,
    require_tensor,
    same_dim,
    shape_text,
    static_int,
)
from pypto_core.ops.opdef import ArgSpec, Effect, KwargSpec, OpDef, OpTraits

ROW = ("row_sum", "row_max", "row_min")
COL = ("col_sum", "col_max", "col_min")
EXPAND = ("add", "sub", "mul", "div")


def product_type(op: str, a_e: Expr, b_e: Expr, kwargs: Mapping[str, Any]) -> TensorType:
    a, b = require_tensor(op, a_e, "a"), require_tensor(op, b_e, "b")
    require_rank(op, a.shape, 2, "a")
    require_rank(op, b.shape, 2, "b")
    m, k = (a.shape[1], a.shape[0]) if kwargs.get("a_trans") else (a.shape[0], a.shape[1])
    k2, n = (b.shape[1], b.shape[0]) if kwargs.get("b_trans") else (b.shape[0], b.shape[1])
    if not same_dim(k, k2):
        raise TypeError(f"{op}: inner dims differ: a {shape_text(a.shape)} x b {shape_text(b.shape)} "
                        f"(a_trans={bool(kwargs.get('a_trans'))}, b_trans={bool(kwargs.get('b_trans'))})")
    dtype = kwargs.get("out_dtype") or promote_dtypes(a.dtype, b.dtype, op)
    return TensorType([m, n], dtype)


def deduce_matmul(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    return product_type("tensor.matmul", args[0], args[1], kwargs)


def deduce_matmul_acc(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    acc = require_tensor("tensor.matmul_acc", args[0], "acc")
    product = product_type("tensor.matmul_acc", args[1], args[2], kwargs)
    if not dims_equal(acc.shape, product.shape):
        raise TypeError(f"tensor.matmul_acc: acc is {shape_text(acc.shape)} but a x b is "
                        f"{shape_text(product.shape)}")
    return acc


def reduce_deducer(op: str, axis: int, dtype: DataType | None = None, allowed: tuple[DataType, ...] | None = None):
    def deduce(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
        src = require_tensor(op, args[0], "the operand")
        require_rank(op, src.shape, 2, "the operand")
        if allowed is not None:
            require_dtype_in(op, src.dtype, allowed, "the operand")
        shape = list(src.shape)
        shape[axis] = ConstInt(1)
        return TensorType(shape, dtype or src.dtype)

    return deduce


def expand_deducer(op: str, axis: int):
    def deduce(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
        src, vec = require_tensor(op, args[0], "the tensor"), require_tensor(op, args[1], "the vector")
        require_rank(op, src.shape, 2, "the tensor")
        require_rank(op, vec.shape, 2, "the vector")
        if not same_dim(vec.shape[axis], src.shape[axis]) or static_int(vec.shape[1 - axis]) != 1:
            want = "[M, 1]" if axis == 0 else "[1, N]"
            raise TypeError(f"{op}: the vector must be {want} for a {shape_text(src.shape)} tensor, got "
                            f"{shape_text(vec.shape)}")
        return TensorType(src.shape, promote_dtypes(src.dtype, vec.dtype, op))

    return deduce


_TRANS = (KwargSpec("a_trans", (bool,), False), KwargSpec("b_trans", (bool,), False))
# PyPTO records tensor.matmul's defaulted flags in the IR (API.md 3.5), so an unwritten one still prints.
_MATMUL_FLAGS = tuple(KwargSpec(n, (bool,), False, recorded=True) for n in ("a_trans", "b_trans", "c_matrix_nz"))
# OPS.md tensor.row_min: "input dtype in {INT16,INT32,FP16,FP32}".
ROW_MIN_DTYPES = (DataType.INT16, DataType.INT32, DataType.FP16, DataType.FP32)

OPDEFS = [
    OpDef("tensor.matmul", deduce_matmul, args=(ArgSpec("a"), ArgSpec("b")),
          kwargs=(KwargSpec("out_dtype", (DataType,)), *_MATMUL_FLAGS),
          doc="a x b (optionally transposed operands)."),
    OpDef("tensor.matmul_acc", deduce_matmul_acc, args=(ArgSpec("acc"), ArgSpec("a"), ArgSpec("b")),
          kwargs=_TRANS, effects={0: Effect.READ_WRITE}, doc="acc += a x b."),
    *[OpDef(f"tensor.{n}", reduce_deducer(f"tensor.{n}", 1, allowed=ROW_MIN_DTYPES if n == "row_min" else None),
            args=(ArgSpec("tensor"),),
            traits=OpTraits(reduction_axes=(1,)), doc=f"{n[4:]} of each row -> [M, 1].") for n in ROW],
    OpDef("tensor.row_argmax", reduce_deducer("tensor.row_argmax", 1, DataType.INT32), args=(ArgSpec("tensor"),),
          traits=OpTraits(reduction_axes=(1,)), doc="Index of the maximum of each row -> [M, 1] INT32."),
    *[OpDef(f"tensor.{n}", reduce_deducer(f"tensor.{n}", 0), args=(ArgSpec("tensor"),),
            traits=OpTraits(reduction_axes=(0,)), doc=f"{n[4:]} of each column -> [1, N].") for n in COL],
    *[OpDef(f"tensor.row_expand_{n}", expand_deducer(f"tensor.row_expand_{n}", 0),
            args=(ArgSpec("tensor"), ArgSpec("row_vec")), doc=f"x {n} v, v broadcast along each row.")
      for n in EXPAND],
    *[OpDef(f"tensor.col_expand_{n}", expand_deducer(f"tensor.col_expand_{n}", 1),
            args=(ArgSpec("tensor"), ArgSpec("col_vec")), doc=f"x {n} v, v broadcast down each column.")
      for n in EXPAND],
]

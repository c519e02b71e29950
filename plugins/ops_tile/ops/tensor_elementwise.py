"""Element-wise tensor ops (API.md 3.5): tensor.add/sub/mul/div/..., scalar forms, unary ops."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pypto_core.ir.expr import Expr
from pypto_core.ir.types import ScalarType, TensorType, Type
from pypto_core.ops.build import broadcast_shapes, promote_dtypes
from pypto_core.ops.opdef import ArgSpec, OpDef


def _tensor(op: str, e: Expr, what: str) -> TensorType:
    if not isinstance(e.type, TensorType):
        raise TypeError(f"{op}: {what} must be a tensor, got {e.type}")
    return e.type


def binary_deducer(op: str):
    def deduce(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
        lhs = _tensor(op, args[0], "lhs")
        if isinstance(args[1].type, ScalarType):
            return TensorType(lhs.shape, lhs.dtype)
        rhs = _tensor(op, args[1], "rhs")
        return TensorType(broadcast_shapes(lhs.shape, rhs.shape, op), promote_dtypes(lhs.dtype, rhs.dtype, op))

    return deduce


def scalar_deducer(op: str):
    def deduce(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
        lhs = _tensor(op, args[0], "lhs")
        if not isinstance(args[1].type, ScalarType):
            raise TypeError(f"{op}: rhs must be a scalar, got {args[1].type}")
        return TensorType(lhs.shape, lhs.dtype)

    return deduce


def unary_deducer(op: str):
    def deduce(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
        src = _tensor(op, args[0], "operand")
        return TensorType(src.shape, src.dtype)

    return deduce


BINARY = ("add", "sub", "mul", "div", "maximum", "minimum")
SCALAR = ("adds", "subs", "muls", "divs", "maxs", "mins")
UNARY = ("exp", "neg", "abs", "sqrt", "log", "relu", "recip")

OPDEFS = [
    *[OpDef(f"tensor.{n}", binary_deducer(f"tensor.{n}"), args=(ArgSpec("lhs"), ArgSpec("rhs")),
            doc=f"Element-wise {n} of two tensors.") for n in BINARY],
    *[OpDef(f"tensor.{n}", scalar_deducer(f"tensor.{n}"), args=(ArgSpec("lhs"), ArgSpec("rhs")),
            doc=f"Element-wise {n[:-1]} of a tensor and a scalar.") for n in SCALAR],
    *[OpDef(f"tensor.{n}", unary_deducer(f"tensor.{n}"), args=(ArgSpec("tensor"),),
            doc=f"Element-wise {n}.") for n in UNARY],
]

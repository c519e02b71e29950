"""Helpers for op plugins: turning DSL/builder arguments into IR and common type rules.

DSL functions and IR builders receive a mix of Python values and IR: a positional literal
arrives from the parser as ConstInt(INDEX)/ConstFloat(FP32); a keyword literal as a Python
int/float/bool/str; lists as Python lists; `pl.FP32` / `pl.Mem.Vec` as the enum member. Builders
called from Python (`T.load(t, [0, 0], [64, 128])`) get plain ints. These helpers accept both.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import Any

from pypto_core.ir.dtypes import DataType
from pypto_core.ir.expr import ConstBool, ConstFloat, ConstInt, Expr, MakeTuple
from pypto_core.ir.scalar_ops import as_expr
from pypto_core.ir.span import Span
from pypto_core.ir.types import ScalarType, TensorType, TileType, Type


def to_expr(value: Any, span: Span | None = None) -> Expr:
    """An operand as an Expr (ints -> INDEX, floats -> FP32, enums -> their int value as INDEX)."""
    if isinstance(value, enum.Enum) and not isinstance(value, DataType):
        v = value.value
        return ConstInt(int(v) if isinstance(v, int) else 0, DataType.INDEX, span)
    return as_expr(value, span)


def to_tuple(values: Any, span: Span | None = None) -> MakeTuple:
    """A shape/offset list as a MakeTuple of INDEX dims (a MakeTuple passes through)."""
    if isinstance(values, MakeTuple):
        return values
    if isinstance(values, Expr):
        return MakeTuple([values], span)
    return MakeTuple([to_expr(v, span) for v in values], span)


def to_int(value: Any, what: str = "value") -> int:
    """A compile-time integer from an int or a ConstInt."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, ConstInt):
        return value.value
    if isinstance(value, enum.IntEnum):
        return int(value)
    raise TypeError(f"{what} must be a compile-time integer, got {_describe(value)}")


def to_float(value: Any, what: str = "value") -> float:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, (ConstInt, ConstFloat)):
        return float(value.value)
    raise TypeError(f"{what} must be a compile-time number, got {_describe(value)}")


def to_bool(value: Any, what: str = "value") -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, ConstBool):
        return value.value
    raise TypeError(f"{what} must be True or False, got {_describe(value)}")


def static_int(e: Any) -> int | None:
    """The value of a constant dim, or None when it is dynamic."""
    if isinstance(e, ConstInt):
        return e.value
    if isinstance(e, int) and not isinstance(e, bool):
        return e
    return None


def static_dims(dims: Sequence[Any]) -> list[int] | None:
    out = []
    for d in dims:
        v = static_int(d)
        if v is None:
            return None
        out.append(v)
    return out


def tuple_elements(e: Expr) -> tuple[Expr, ...]:
    if isinstance(e, MakeTuple):
        return e.elements
    raise TypeError(f"expected a list of dims, got {_describe(e)}")


def _describe(value: Any) -> str:
    if isinstance(value, Expr):
        return f"an expression of type {value.type}"
    return f"{type(value).__name__} {value!r}"


def is_tile(e: Any) -> bool:
    return isinstance(e, Expr) and isinstance(e.type, TileType)


def is_tensor(e: Any) -> bool:
    return isinstance(e, Expr) and isinstance(e.type, TensorType)


def is_scalar(e: Any) -> bool:
    return isinstance(e, Expr) and isinstance(e.type, ScalarType)


def element_dtype(t: Type) -> DataType:
    dtype = getattr(t, "dtype", None)
    if not isinstance(dtype, DataType):
        raise TypeError(f"expected a tensor, tile or scalar, got {t}")
    return dtype


def promote_dtypes(a: DataType, b: DataType, op_name: str) -> DataType:
    """Element dtype of an element-wise op: equal dtypes stay; otherwise the wider of one category."""
    if a is b:
        return a
    if a.category != b.category:
        raise TypeError(f"{op_name}: operands have different dtype categories ({a.name} and {b.name})")
    return a if a.get_bit() >= b.get_bit() else b


def broadcast_shapes(a: Sequence[Expr], b: Sequence[Expr], op_name: str) -> tuple[Expr, ...]:
    """Right-aligned numpy-style broadcasting of two shapes (a dynamic dim matches anything equal)."""
    from pypto_core.ir.structural import structural_equal

    out: list[Expr] = []
    for i in range(1, max(len(a), len(b)) + 1):
        x = a[-i] if i <= len(a) else None
        y = b[-i] if i <= len(b) else None
        if x is None:
            out.append(y)  # type: ignore[arg-type]
            continue
        if y is None:
            out.append(x)
            continue
        sx, sy = static_int(x), static_int(y)
        if sx == 1 and sy != 1:
            out.append(y)
        elif sy == 1:
            out.append(x)
        elif sx is not None and sy is not None and sx != sy:
            raise TypeError(f"{op_name}: shapes {_shape_text(a)} and {_shape_text(b)} do not broadcast")
        elif sx is None and sy is None and not structural_equal(x, y):
            raise TypeError(f"{op_name}: dynamic dims of {_shape_text(a)} and {_shape_text(b)} may differ")
        else:
            out.append(x if sx is not None or sy is None else y)
    return tuple(reversed(out))


def _shape_text(dims: Sequence[Expr]) -> str:
    parts = []
    for d in dims:
        v = static_int(d)
        parts.append(str(v) if v is not None else getattr(d, "name_hint", "?"))
    return "[" + ", ".join(parts) + "]"


shape_text = _shape_text


def retype_literal(operand: Expr, dtype: DataType) -> Expr:
    """An untyped literal (INDEX int, FP32 float) takes the element dtype of the tile/tensor operand.

    A float literal on an int operand stays FP32; typed constants and scalar Vars are kept (API.md 3.1).
    """
    if isinstance(operand, ConstInt) and operand.type.dtype is DataType.INDEX:
        if dtype.is_float():
            return ConstFloat(float(operand.value), dtype, operand.span)
        if dtype.is_int():
            return ConstInt(operand.value, dtype, operand.span)
    if isinstance(operand, ConstFloat) and operand.type.dtype is DataType.FP32 and dtype.is_float():
        return ConstFloat(operand.value, dtype, operand.span)
    return operand

"""Scalar expression builders with dtype promotion (docs/dsl.md).

Both operands must be scalars; bools are rejected for arithmetic; ints and floats do not mix; the
wider bit width wins and on a tie the left dtype; the narrower side is wrapped in a Cast, except
that INDEX and INT64 are never cast to each other.
"""

from __future__ import annotations

from typing import Any

from pypto_core.ir import expr as E
from pypto_core.ir.dtypes import DataType
from pypto_core.ir.span import Span
from pypto_core.ir.types import ScalarType


def as_expr(value: Any, span: Span | None = None) -> E.Expr:
    """Python literals become constants: int -> INDEX, float -> FP32, bool -> BOOL."""
    if isinstance(value, E.Expr):
        return value
    if isinstance(value, bool):
        return E.ConstBool(value, span)
    if isinstance(value, int):
        if not -(2**63) <= value < 2**63:
            raise ValueError("an integer literal does not fit in 64 bits (-2**63 .. 2**63 - 1)")
        return E.ConstInt(value, DataType.INDEX, span)
    if isinstance(value, float):
        return E.ConstFloat(value, DataType.FP32, span)
    raise TypeError(f"cannot use {type(value).__name__} {value!r} as a scalar expression")


def scalar_dtype(e: E.Expr, op_name: str) -> DataType:
    t = e.type
    if not isinstance(t, ScalarType):
        raise TypeError(f"Operator '{op_name}' requires scalar operands, got {type(t).__name__}")
    return t.dtype


def promote(op_name: str, lhs: E.Expr, rhs: E.Expr, span: Span | None = None,
            allow_bool: bool = False) -> tuple[E.Expr, E.Expr, DataType]:
    ld, rd = scalar_dtype(lhs, op_name), scalar_dtype(rhs, op_name)
    if not allow_bool and (ld.is_bool() or rd.is_bool()):
        raise TypeError(f"Operator '{op_name}' does not accept bool operands, got "
                        f"{ld.name.lower()} and {rd.name.lower()}")
    if ld.category != rd.category:
        raise TypeError(f"Operator '{op_name}' requires same numeric dtype category, got "
                        f"{ld.name.lower()} and {rd.name.lower()}")
    if ld is rd or (ld.is_index_like() and rd.is_index_like()):
        return lhs, rhs, ld
    if rd.get_bit() > ld.get_bit():
        return E.Cast(lhs, rd, span), rhs, rd
    return lhs, E.Cast(rhs, ld, span), ld


def _arith(cls: type[E.BinaryExpr], name: str):
    def build(lhs: Any, rhs: Any, span: Span | None = None) -> E.Expr:
        a, b, dtype = promote(name, as_expr(lhs, span), as_expr(rhs, span), span)
        return cls(a, b, dtype, span)

    build.__name__ = name
    return build


def _compare(cls: type[E.BinaryExpr], name: str):
    def build(lhs: Any, rhs: Any, span: Span | None = None) -> E.Expr:
        a, b, _ = promote(name, as_expr(lhs, span), as_expr(rhs, span), span, allow_bool=True)
        return cls(a, b, DataType.BOOL, span)

    build.__name__ = name
    return build


def _integer(cls: type[E.BinaryExpr], name: str):
    def build(lhs: Any, rhs: Any, span: Span | None = None) -> E.Expr:
        a, b, dtype = promote(name, as_expr(lhs, span), as_expr(rhs, span), span)
        if not dtype.is_int():
            raise TypeError(f"Operator '{name}' requires integer operands, got {dtype.name.lower()}")
        return cls(a, b, dtype, span)

    build.__name__ = name
    return build


def _logical(cls: type[E.BinaryExpr], name: str):
    def build(lhs: Any, rhs: Any, span: Span | None = None) -> E.Expr:
        a, b = as_expr(lhs, span), as_expr(rhs, span)
        for side in (a, b):
            if scalar_dtype(side, name) is not DataType.BOOL:
                raise TypeError(f"Operator '{name}' requires bool operands, got "
                                f"{scalar_dtype(side, name).name.lower()}")
        return cls(a, b, DataType.BOOL, span)

    build.__name__ = name
    return build


add = _arith(E.Add, "add")
sub = _arith(E.Sub, "sub")
mul = _arith(E.Mul, "mul")
truediv = _arith(E.FloatDiv, "truediv")
floordiv = _arith(E.FloorDiv, "floordiv")
mod = _arith(E.FloorMod, "mod")
pow = _arith(E.Pow, "pow")  # noqa: A001 - mirrors ir.pow
min_ = _arith(E.Min, "min")
max_ = _arith(E.Max, "max")
eq = _compare(E.Eq, "eq")
ne = _compare(E.Ne, "ne")
lt = _compare(E.Lt, "lt")
le = _compare(E.Le, "le")
gt = _compare(E.Gt, "gt")
ge = _compare(E.Ge, "ge")
bit_and = _integer(E.BitAnd, "bit_and")
bit_or = _integer(E.BitOr, "bit_or")
bit_xor = _integer(E.BitXor, "bit_xor")
bit_shift_left = _integer(E.BitShiftLeft, "bit_shift_left")
bit_shift_right = _integer(E.BitShiftRight, "bit_shift_right")
and_ = _logical(E.And, "and")
or_ = _logical(E.Or, "or")
xor = _logical(E.Xor, "xor")


def neg(x: Any, span: Span | None = None) -> E.Expr:
    e = as_expr(x, span)
    dtype = scalar_dtype(e, "neg")
    if dtype.is_bool():
        raise TypeError("Operator 'neg' does not accept a bool operand")
    if isinstance(e, E.ConstInt):
        return E.ConstInt(-e.value, dtype, span or e.span)
    if isinstance(e, E.ConstFloat):
        return E.ConstFloat(-e.value, dtype, span or e.span)
    return E.Neg(e, dtype, span)


def bit_not(x: Any, span: Span | None = None) -> E.Expr:
    e = as_expr(x, span)
    dtype = scalar_dtype(e, "bit_not")
    if not dtype.is_int():
        raise TypeError(f"Operator 'bit_not' requires an integer operand, got {dtype.name.lower()}")
    return E.BitNot(e, dtype, span)


def not_(x: Any, span: Span | None = None) -> E.Expr:
    e = as_expr(x, span)
    if scalar_dtype(e, "not") is not DataType.BOOL:
        raise TypeError("Operator 'not' requires a bool operand")
    return E.Not(e, DataType.BOOL, span)


def abs_(x: Any, span: Span | None = None) -> E.Expr:
    e = as_expr(x, span)
    return E.Abs(e, scalar_dtype(e, "abs"), span)


def cast(x: Any, dtype: DataType, span: Span | None = None) -> E.Expr:
    e = as_expr(x, span)
    scalar_dtype(e, "cast")
    return E.Cast(e, dtype, span)


_REBUILD = {
    E.Add: add, E.Sub: sub, E.Mul: mul, E.FloatDiv: truediv, E.FloorDiv: floordiv, E.FloorMod: mod, E.Pow: pow,
    E.Min: min_, E.Max: max_, E.Eq: eq, E.Ne: ne, E.Lt: lt, E.Le: le, E.Gt: gt, E.Ge: ge, E.BitAnd: bit_and,
    E.BitOr: bit_or, E.BitXor: bit_xor, E.BitShiftLeft: bit_shift_left, E.BitShiftRight: bit_shift_right,
    E.And: and_, E.Or: or_, E.Xor: xor,
}


def rebuild(e: E.Expr, *operands: E.Expr) -> E.Expr:
    """`e` with new operands and promotion applied again (a substituted operand may change the dtypes)."""
    if isinstance(e, E.BinaryExpr):
        return _REBUILD[type(e)](operands[0], operands[1], e.span)
    unary = {E.Neg: neg, E.Not: not_, E.BitNot: bit_not, E.Abs: abs_}
    if isinstance(e, E.Cast):
        return cast(operands[0], e.type.dtype, e.span)
    if type(e) in unary:
        return unary[type(e)](operands[0], e.span)
    raise TypeError(f"cannot rebuild {type(e).__name__}")


def loop_var_dtype(*bounds: E.Expr) -> DataType:
    """The dtype of a loop variable over these bounds (docs/dsl.md, loops and carries): INDEX, INT64 only when every bound is
    an INT64 constant, or the one other dtype a non-constant bound has."""
    dtypes = [b.type.dtype for b in bounds if isinstance(b.type, ScalarType)]
    if all(isinstance(b, E.ConstInt) for b in bounds) and dtypes and all(d is DataType.INT64 for d in dtypes):
        return DataType.INT64
    others = {d for d in dtypes if d is not DataType.INDEX}
    if len(others) == 1 and not all(isinstance(b, E.ConstInt) for b in bounds):
        return others.pop()
    return DataType.INDEX

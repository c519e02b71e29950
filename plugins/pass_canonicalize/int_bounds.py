"""Integer bounds of scalar expressions, for Simplify's range-aware rules and proofs (docs/passes/simplify.md).

`Bounds(lo, hi)` is an inclusive interval. A variable's bounds are what the simplifier recorded for it
(its single definition's value, a loop's range, a branch condition) or its dtype's values (INDEX: the
non-negative 64-bit values); an expression's bounds follow by interval arithmetic, saturating at the
dtype's ends (an end of the range stands for "unbounded", as no index computation wraps around).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pypto_core.ir import expr as E
from pypto_core.ir.dtypes import DataType
from pypto_core.ir.types import ScalarType

INT64 = (-(2**63), 2**63 - 1)


@dataclass(frozen=True)
class Bounds:
    lo: int
    hi: int

    def meet(self, other: Bounds) -> Bounds:
        return Bounds(max(self.lo, other.lo), min(self.hi, other.hi))

    @property
    def single(self) -> int | None:
        return self.lo if self.lo == self.hi else None


def int_dtype(e: E.Expr) -> DataType | None:
    """The dtype of an integer (or INDEX) scalar expression, else None."""
    t = e.type
    if isinstance(t, ScalarType) and (t.dtype.is_int() or t.dtype is DataType.INDEX):
        return t.dtype
    return None


def dtype_range(dtype: DataType) -> Bounds:
    """The values the dtype holds (INDEX: 64-bit signed, the machine word)."""
    if dtype is DataType.INDEX:
        return Bounds(*INT64)
    r = dtype.int_range()
    return Bounds(*r) if r is not None else Bounds(*INT64)


def variable_default(dtype: DataType) -> Bounds:
    """What a variable of the dtype may hold with nothing known: an INDEX is non-negative."""
    if dtype is DataType.INDEX:
        return Bounds(0, INT64[1])
    return dtype_range(dtype)


class BoundsOf:
    """The bounds of an integer expression, given the bounds known for variables (`known(var)`)."""

    def __init__(self, known: Callable[[E.Var], Bounds | None]) -> None:
        self.known = known

    def __call__(self, e: E.Expr) -> Bounds | None:
        dtype = int_dtype(e)
        if dtype is None:
            return None
        found = self._compute(e, dtype)
        whole = dtype_range(dtype)
        if found is None or found.lo > found.hi:
            return variable_default(dtype) if isinstance(e, E.Var) else whole
        return Bounds(min(max(found.lo, whole.lo), whole.hi), max(min(found.hi, whole.hi), whole.lo))

    def _compute(self, e: E.Expr, dtype: DataType) -> Bounds | None:
        if isinstance(e, E.ConstInt):
            return Bounds(e.value, e.value)
        if isinstance(e, E.Var):
            known = self.known(e)
            default = variable_default(dtype)
            return known.meet(default) if known is not None else default
        if isinstance(e, E.Neg):
            a = self(e.operand)
            return Bounds(-a.hi, -a.lo) if a else None
        if isinstance(e, E.Cast):
            a = self(e.operand)
            return a
        if not isinstance(e, E.BinaryExpr):
            return None
        a, b = self(e.left), self(e.right)
        if a is None or b is None:
            return None
        if isinstance(e, E.Add):
            return Bounds(a.lo + b.lo, a.hi + b.hi)
        if isinstance(e, E.Sub):
            return Bounds(a.lo - b.hi, a.hi - b.lo)
        if isinstance(e, E.Mul):
            products = [a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi]
            return Bounds(min(products), max(products))
        if isinstance(e, E.Min):
            return Bounds(min(a.lo, b.lo), min(a.hi, b.hi))
        if isinstance(e, E.Max):
            return Bounds(max(a.lo, b.lo), max(a.hi, b.hi))
        divisor = b.single
        if isinstance(e, E.FloorDiv) and divisor:
            ends = [a.lo // divisor, a.hi // divisor]
            return Bounds(min(ends), max(ends))
        if isinstance(e, E.FloorMod) and divisor:
            if divisor > 0:
                return a if 0 <= a.lo and a.hi < divisor else Bounds(0, divisor - 1)
            return Bounds(divisor + 1, 0)
        return None

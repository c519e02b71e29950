"""Simplify's expression rules: integer and boolean scalar arithmetic to a canonical, folded form
(docs/passes/simplify.md, expression rules).

The rewriter works on the IR's own expression nodes, bottom up: the operands of a node are simplified
first, then the node's rules are tried top to bottom; a rule that fires gives a new node, simplified
again. Float-typed arithmetic and casts are never folded (only their operands are simplified).
Comparisons are not decided from bounds here: `prove` (used by the if / for folds) does that.
"""

from __future__ import annotations

from collections.abc import Callable

from pypto_core.errors import UserError
from pypto_core.ir import expr as E
from pypto_core.ir.dtypes import DataType
from pypto_core.ir.types import ScalarType
from pypto_plugins.pass_canonicalize.int_bounds import INT64, Bounds, BoundsOf, dtype_range, int_dtype

Rule = Callable[["ExprSimplifier", E.Expr], E.Expr | None]
_MAX_REWRITES = 16  # per node: every rule shrinks or orders the expression, so a chain this long is a bug guard


# -- small helpers ------------------------------------------------------------------------------------
def const_of(e: E.Expr) -> int | None:
    return e.value if isinstance(e, E.ConstInt) else None


def same(a: E.Expr, b: E.Expr) -> bool:
    """The same value by construction: the same variables, constants and operators (no calls)."""
    if a is b:
        return not isinstance(a, E.Call)
    if type(a) is not type(b):
        return False
    if isinstance(a, E.Var):
        return False
    if isinstance(a, (E.ConstInt, E.ConstBool, E.ConstFloat)):
        return a.value == b.value and a.type.dtype is b.type.dtype  # type: ignore[attr-defined]
    if isinstance(a, E.BinaryExpr):
        return a.type.dtype is b.type.dtype and same(a.left, b.left) and same(a.right, b.right)  # type: ignore[attr-defined]
    if isinstance(a, E.UnaryExpr):
        return a.type.dtype is b.type.dtype and same(a.operand, b.operand)  # type: ignore[attr-defined]
    return False


def fits(value: int, dtype: DataType) -> bool:
    r = dtype_range(dtype)
    return r.lo <= value <= r.hi and INT64[0] <= value <= INT64[1]


def offset_of(e: E.Expr) -> tuple[E.Expr, int] | None:
    """`x + c` / `x - c` as (x, ±c); None for other forms."""
    if isinstance(e, E.Add) and isinstance(e.right, E.ConstInt):
        return e.left, e.right.value
    if isinstance(e, E.Sub) and isinstance(e.right, E.ConstInt):
        return e.left, -e.right.value
    return None


def is_int_arith(e: E.Expr) -> bool:
    return int_dtype(e) is not None


def compares_ints(e: E.Expr) -> bool:
    return isinstance(e, E.BinaryExpr) and int_dtype(e.left) is not None and int_dtype(e.right) is not None


def is_bool(e: E.Expr) -> bool:
    return isinstance(e.type, ScalarType) and e.type.dtype is DataType.BOOL


class ExprSimplifier:
    """Simplifies scalar expressions; `lookup(var)` gives a variable's replacement, `bounds` its range."""

    def __init__(self, lookup: Callable[[E.Var], E.Expr | None], bounds: BoundsOf) -> None:
        self.lookup = lookup
        self.bounds = bounds

    # -- building nodes ---------------------------------------------------------------------------
    @staticmethod
    def const(value: int, like: E.Expr) -> E.Expr:
        return E.ConstInt(value, like.type.dtype, like.span)  # type: ignore[attr-defined]

    @staticmethod
    def node(cls: type[E.BinaryExpr], left: E.Expr, right: E.Expr, like: E.Expr) -> E.Expr:
        dtype = DataType.BOOL if cls in COMPARISONS else like.type.dtype  # type: ignore[attr-defined]
        return cls(left, right, dtype, like.span)

    def plus(self, base: E.Expr, c: int, like: E.Expr) -> E.Expr | None:
        """`base + c` (just `base` for 0); None when `c` leaves the dtype."""
        if not fits(c, like.type.dtype):  # type: ignore[attr-defined]
            return None
        return base if c == 0 else E.Add(base, self.const(c, like), like.type.dtype, like.span)  # type: ignore[attr-defined]

    # -- the walk ---------------------------------------------------------------------------------
    def __call__(self, e: E.Expr) -> E.Expr:
        if isinstance(e, E.IterArg | E.Var):
            found = self.lookup(e)
            return found if found is not None else e
        if isinstance(e, E.BinaryExpr):
            left, right = self(e.left), self(e.right)
            if left is not e.left or right is not e.right:
                e = type(e)(left, right, e.type.dtype, e.span)  # type: ignore[attr-defined]
            return self.rewrite(e)
        if isinstance(e, E.UnaryExpr):
            operand = self(e.operand)
            if operand is not e.operand:
                e = type(e)(operand, e.type.dtype, e.span)  # type: ignore[attr-defined]
            return self.rewrite(e)
        if isinstance(e, E.MakeTuple):
            elements = [self(x) for x in e.elements]
            if all(a is b for a, b in zip(elements, e.elements)):
                return e
            return E.MakeTuple(elements, e.span)
        return e

    def rewrite(self, e: E.Expr) -> E.Expr:
        for _ in range(_MAX_REWRITES):
            for rule in RULES.get(type(e), ()):
                found = rule(self, e)
                if found is not None and found is not e:
                    e = self(found) if not isinstance(found, E.ConstInt | E.ConstBool) else found
                    break
            else:
                return e
        return e


# -- constant folding ---------------------------------------------------------------------------------
_INT_FOLD: dict[type, Callable[[int, int], int]] = {
    E.Add: lambda a, b: a + b, E.Sub: lambda a, b: a - b, E.Mul: lambda a, b: a * b,
    E.FloorDiv: lambda a, b: a // b, E.FloorMod: lambda a, b: a % b, E.Min: min, E.Max: max,
    E.BitAnd: lambda a, b: a & b, E.BitOr: lambda a, b: a | b, E.BitXor: lambda a, b: a ^ b,
}
_COMPARE: dict[type, Callable[[object, object], bool]] = {
    E.Eq: lambda a, b: a == b, E.Ne: lambda a, b: a != b, E.Lt: lambda a, b: a < b,  # type: ignore[operator]
    E.Le: lambda a, b: a <= b, E.Gt: lambda a, b: a > b, E.Ge: lambda a, b: a >= b,  # type: ignore[operator]
}
COMPARISONS = tuple(_COMPARE)


def fold_int_constants(s: ExprSimplifier, e: E.Expr) -> E.Expr | None:
    """`3 + 4` -> `7` (left alone when the result leaves the dtype); `x // 0` is an error."""
    a, b = const_of(e.left), const_of(e.right)  # type: ignore[attr-defined]
    if b == 0 and isinstance(e, E.FloorDiv | E.FloorMod):
        word = "division" if isinstance(e, E.FloorDiv) else "modulo"
        raise UserError(f"Floor {word} by zero", e.span)
    if a is None or b is None or not is_int_arith(e):
        return None
    value = _INT_FOLD[type(e)](a, b)
    return s.const(value, e) if fits(value, e.type.dtype) else None  # type: ignore[attr-defined]


def fold_comparison(s: ExprSimplifier, e: E.Expr) -> E.Expr | None:
    """Two integer or bool constants compared -> True / False."""
    left, right = e.left, e.right  # type: ignore[attr-defined]
    if isinstance(left, E.ConstInt) and isinstance(right, E.ConstInt) or \
            isinstance(left, E.ConstBool) and isinstance(right, E.ConstBool):
        return E.ConstBool(_COMPARE[type(e)](left.value, right.value), e.span)
    return None


def fold_negation(s: ExprSimplifier, e: E.Expr) -> E.Expr | None:
    value = const_of(e.operand)  # type: ignore[attr-defined]
    if value is None or not is_int_arith(e) or not fits(-value, e.type.dtype):  # type: ignore[attr-defined]
        return None
    return s.const(-value, e)


# -- identities ---------------------------------------------------------------------------------------
def constant_to_the_right(s: ExprSimplifier, e: E.Expr) -> E.Expr | None:
    """`7 * n` -> `n * 7` (+, *, min, max)."""
    if is_int_arith(e) and isinstance(e.left, E.ConstInt) and not isinstance(e.right, E.ConstInt):  # type: ignore[attr-defined]
        return s.node(type(e), e.right, e.left, e)  # type: ignore[attr-defined, arg-type]
    return None


def add_zero(s: ExprSimplifier, e: E.Expr) -> E.Expr | None:
    return e.left if is_int_arith(e) and const_of(e.right) == 0 else None  # type: ignore[attr-defined]


def multiply_by_one_or_zero(s: ExprSimplifier, e: E.Expr) -> E.Expr | None:
    """`x * 1` -> `x`, `x * 0` -> `0`."""
    c = const_of(e.right)  # type: ignore[attr-defined]
    if not is_int_arith(e) or c not in (0, 1):
        return None
    return e.left if c == 1 else s.const(0, e)  # type: ignore[attr-defined]


def divide_by_one(s: ExprSimplifier, e: E.Expr) -> E.Expr | None:
    """`x // 1` -> `x`, `x % 1` -> `0`."""
    if not is_int_arith(e) or const_of(e.right) != 1:  # type: ignore[attr-defined]
        return None
    return e.left if isinstance(e, E.FloorDiv) else s.const(0, e)  # type: ignore[attr-defined]


def same_operands(s: ExprSimplifier, e: E.Expr) -> E.Expr | None:
    """`x - x` -> 0, `min(x, x)` -> x, `x == x` / `x <= x` -> True, `x < x` / `x != x` -> False."""
    left, right = e.left, e.right  # type: ignore[attr-defined]
    if not same(left, right):
        return None
    if isinstance(e, E.Sub) and is_int_arith(e):
        return s.const(0, e)
    if isinstance(e, E.Min | E.Max) and is_int_arith(e):
        return left
    if isinstance(e, COMPARISONS) and compares_ints(e):
        return E.ConstBool(isinstance(e, E.Eq | E.Le | E.Ge), e.span)
    return None


# -- reassociation and cancellation -------------------------------------------------------------------
def merge_offsets(s: ExprSimplifier, e: E.Expr) -> E.Expr | None:
    """`(x + c1) + c2` -> `x + (c1 + c2)`, and the same with `-` on either side."""
    if not is_int_arith(e):
        return None
    outer, inner = offset_of(e), offset_of(e.left)  # type: ignore[attr-defined]
    if outer is None or inner is None:
        return None
    return s.plus(inner[0], inner[1] + outer[1], e)


def constant_outward(s: ExprSimplifier, e: E.Expr) -> E.Expr | None:
    """`(x + c) + y` -> `(x + y) + c`, `(x + c) - y` -> `(x - y) + c`: constants gather at the top."""
    if not is_int_arith(e) or isinstance(e.right, E.ConstInt):  # type: ignore[attr-defined]
        return None
    inner = offset_of(e.left)  # type: ignore[attr-defined]
    if inner is None:
        return None
    return s.plus(s.node(type(e), inner[0], e.right, e), inner[1], e)  # type: ignore[attr-defined, arg-type]


def subtract_offset(s: ExprSimplifier, e: E.Expr) -> E.Expr | None:
    """`x - (y + c)` -> `(x - y) + (-c)` (and `x - (y - c)` -> `(x - y) + c`)."""
    if not is_int_arith(e) or isinstance(e.left, E.ConstInt):  # type: ignore[attr-defined]
        return None
    inner = offset_of(e.right)  # type: ignore[attr-defined]
    if inner is None:
        return None
    return s.plus(E.Sub(e.left, inner[0], e.type.dtype, e.span), -inner[1], e)  # type: ignore[attr-defined]


def subtract_difference(s: ExprSimplifier, e: E.Expr) -> E.Expr | None:
    """`x - (y - z)` -> `(x + z) - y`."""
    right = e.right  # type: ignore[attr-defined]
    if not is_int_arith(e) or not isinstance(right, E.Sub):
        return None
    return E.Sub(E.Add(e.left, right.right, e.type.dtype, e.span), right.left, e.type.dtype, e.span)  # type: ignore[attr-defined]


def cancel(s: ExprSimplifier, e: E.Expr) -> E.Expr | None:
    """`(x + y) - y` -> `x`, `(y + x) - y` -> `x`, `(x - y) + y` -> `x`, `y + (x - y)` -> `x`."""
    if not is_int_arith(e):
        return None
    left, right = e.left, e.right  # type: ignore[attr-defined]
    if isinstance(e, E.Sub) and isinstance(left, E.Add):
        if same(left.right, right):
            return left.left
        if same(left.left, right):
            return left.right
    if isinstance(e, E.Add):
        if isinstance(left, E.Sub) and same(left.right, right):
            return left.left
        if isinstance(right, E.Sub) and same(right.right, left):
            return right.left
    return None


def _scaled(e: E.Expr) -> tuple[E.Expr, int]:
    """`x * c` as (x, c); anything else as (e, 1)."""
    if isinstance(e, E.Mul) and isinstance(e.right, E.ConstInt):
        return e.left, e.right.value
    return e, 1


def collect_like_terms(s: ExprSimplifier, e: E.Expr) -> E.Expr | None:
    """`x + x` -> `x * 2`, `x*a + x*b` -> `x * (a + b)`, `x*a - x*b` -> `x * (a - b)`."""
    if not is_int_arith(e) or isinstance(e.right, E.ConstInt):  # type: ignore[attr-defined]
        return None
    (x, a), (y, b) = _scaled(e.left), _scaled(e.right)  # type: ignore[attr-defined]
    if not same(x, y):
        return None
    factor = a + b if isinstance(e, E.Add) else a - b
    if not fits(factor, e.type.dtype):  # type: ignore[attr-defined]
        return None
    return E.Mul(x, s.const(factor, e), e.type.dtype, e.span)  # type: ignore[attr-defined]


def merge_factors(s: ExprSimplifier, e: E.Expr) -> E.Expr | None:
    """`(x * c1) * c2` -> `x * (c1 * c2)`."""
    c2, left = const_of(e.right), e.left  # type: ignore[attr-defined]
    if not is_int_arith(e) or c2 is None or not isinstance(left, E.Mul) or const_of(left.right) is None:
        return None
    factor = left.right.value * c2
    return E.Mul(left.left, s.const(factor, e), e.type.dtype, e.span) if fits(factor, e.type.dtype) else None  # type: ignore[attr-defined]


def distribute_offset(s: ExprSimplifier, e: E.Expr) -> E.Expr | None:
    """`(x + c1) * c2` -> `x * c2 + c1 * c2`."""
    c2 = const_of(e.right)  # type: ignore[attr-defined]
    inner = offset_of(e.left)  # type: ignore[attr-defined]
    if not is_int_arith(e) or c2 is None or inner is None:
        return None
    return s.plus(E.Mul(inner[0], e.right, e.type.dtype, e.span), inner[1] * c2, e)  # type: ignore[attr-defined]


def common_min_max_term(s: ExprSimplifier, e: E.Expr) -> E.Expr | None:
    """`min(x + y, x + z)` -> `x + min(y, z)` (and max; the shared term on either side)."""
    left, right = e.left, e.right  # type: ignore[attr-defined]
    if not is_int_arith(e) or not isinstance(left, E.Add) or not isinstance(right, E.Add):
        return None
    dtype = e.type.dtype  # type: ignore[attr-defined]
    if same(left.left, right.left):
        return E.Add(left.left, type(e)(left.right, right.right, dtype, e.span), dtype, e.span)
    if same(left.right, right.right):
        return E.Add(type(e)(left.left, right.left, dtype, e.span), left.right, dtype, e.span)
    return None


def min_max_by_bounds(s: ExprSimplifier, e: E.Expr) -> E.Expr | None:
    """`min(a, b)` -> the side provably not larger (max: not smaller)."""
    if not is_int_arith(e):
        return None
    a, b = s.bounds(e.left), s.bounds(e.right)  # type: ignore[attr-defined]
    if a is None or b is None:
        return None
    smaller = e.left if a.hi <= b.lo else e.right if b.hi <= a.lo else None  # type: ignore[attr-defined]
    if smaller is None:
        return None
    if isinstance(e, E.Min):
        return smaller
    return e.right if smaller is e.left else e.left  # type: ignore[attr-defined]


# -- floor division and modulo ------------------------------------------------------------------------
def divide_by_bounds(s: ExprSimplifier, e: E.Expr) -> E.Expr | None:
    """`i // 8` -> `0` and `i % 8` -> `i` when the bounds of `i` say so (i in [0, 8))."""
    c = const_of(e.right)  # type: ignore[attr-defined]
    if not is_int_arith(e) or not c:
        return None
    a = s.bounds(e.left)  # type: ignore[attr-defined]
    if a is None or a.lo // c != a.hi // c:
        return None
    quotient = a.lo // c
    if isinstance(e, E.FloorDiv):
        return s.const(quotient, e)
    return e.left if quotient == 0 else None  # type: ignore[attr-defined]


def divide_multiple(s: ExprSimplifier, e: E.Expr) -> E.Expr | None:
    """`(x * 8) // 4` -> `x * 2`, `(x * 8) % 4` -> `0`, `(x // 2) // 4` -> `x // 8` (positive constants)."""
    c = const_of(e.right)  # type: ignore[attr-defined]
    left = e.left  # type: ignore[attr-defined]
    if not is_int_arith(e) or c is None or c <= 0:
        return None
    if isinstance(left, E.Mul) and (k := const_of(left.right)) is not None and k % c == 0:
        if isinstance(e, E.FloorMod):
            return s.const(0, e)
        return E.Mul(left.left, s.const(k // c, e), e.type.dtype, e.span)  # type: ignore[attr-defined]
    if isinstance(e, E.FloorDiv) and isinstance(left, E.FloorDiv) and (k := const_of(left.right)) and k > 0:
        return E.FloorDiv(left.left, s.const(k * c, e), e.type.dtype, e.span) if fits(k * c, e.type.dtype) else None  # type: ignore[attr-defined]
    return None


# -- comparisons ---------------------------------------------------------------------------------------
def less_than_form(s: ExprSimplifier, e: E.Expr) -> E.Expr | None:
    """`a > b` -> `b < a`, `a >= b` -> `b <= a`."""
    if not compares_ints(e):
        return None
    cls = E.Lt if isinstance(e, E.Gt) else E.Le
    return cls(e.right, e.left, DataType.BOOL, e.span)  # type: ignore[attr-defined]


def constant_right_of_equality(s: ExprSimplifier, e: E.Expr) -> E.Expr | None:
    """`c == x` -> `x == c`, `c != x` -> `x != c`."""
    if compares_ints(e) and isinstance(e.left, E.ConstInt) and not isinstance(e.right, E.ConstInt):  # type: ignore[attr-defined]
        return type(e)(e.right, e.left, DataType.BOOL, e.span)  # type: ignore[attr-defined, call-arg]
    return None


def constant_across_comparison(s: ExprSimplifier, e: E.Expr) -> E.Expr | None:
    """`x + c1 < c2` -> `x < c2 - c1`; `c1 < x + c2` -> `c1 - c2 < x` (<, <=, ==, !=)."""
    if not compares_ints(e):
        return None
    left, right = e.left, e.right  # type: ignore[attr-defined]
    dtype = left.type.dtype
    if isinstance(right, E.ConstInt) and (inner := offset_of(left)) is not None:
        moved = right.value - inner[1]
        if fits(moved, dtype):
            return type(e)(inner[0], E.ConstInt(moved, dtype, right.span), DataType.BOOL, e.span)  # type: ignore[call-arg]
    if isinstance(left, E.ConstInt) and (inner := offset_of(right)) is not None:
        moved = left.value - inner[1]
        if fits(moved, dtype):
            return type(e)(E.ConstInt(moved, dtype, left.span), inner[0], DataType.BOOL, e.span)  # type: ignore[call-arg]
    return None


# -- logic ---------------------------------------------------------------------------------------------
def logic_with_constant(s: ExprSimplifier, e: E.Expr) -> E.Expr | None:
    """`True and x` -> `x`, `False and x` -> `False`, `True or x` -> `True`, `False or x` -> `x`."""
    is_and = isinstance(e, E.And)
    for known, other in ((e.left, e.right), (e.right, e.left)):  # type: ignore[attr-defined]
        if isinstance(known, E.ConstBool):
            if known.value is is_and:
                return other
            return E.ConstBool(not is_and, e.span)
    return None


_NEGATED: dict[type, tuple[type, bool]] = {  # not (a OP b) -> (a NEG b) or (b NEG a) when swapped
    E.Lt: (E.Le, True), E.Le: (E.Lt, True), E.Gt: (E.Le, False), E.Ge: (E.Lt, False),
    E.Eq: (E.Ne, False), E.Ne: (E.Eq, False),
}


def push_not_inward(s: ExprSimplifier, e: E.Expr) -> E.Expr | None:
    """`not True` -> `False`; `not not x` -> `x`; `not (x < y)` -> `y <= x`, `not (x == y)` -> `x != y`;
    De Morgan: `not (a and b)` -> `not a or not b`."""
    x = e.operand  # type: ignore[attr-defined]
    if isinstance(x, E.ConstBool):
        return E.ConstBool(not x.value, e.span)
    if isinstance(x, E.Not):
        return x.operand
    if type(x) in _NEGATED and compares_ints(x):
        cls, swap = _NEGATED[type(x)]
        left, right = (x.right, x.left) if swap else (x.left, x.right)
        return cls(left, right, DataType.BOOL, e.span)
    if isinstance(x, E.And | E.Or):
        other = E.Or if isinstance(x, E.And) else E.And
        return other(E.Not(x.left, DataType.BOOL, e.span), E.Not(x.right, DataType.BOOL, e.span),
                     DataType.BOOL, e.span)
    return None


RULES: dict[type, tuple[Rule, ...]] = {
    E.Add: (fold_int_constants, constant_to_the_right, add_zero, merge_offsets, cancel, collect_like_terms,
            constant_outward),
    E.Sub: (fold_int_constants, add_zero, same_operands, merge_offsets, cancel, collect_like_terms,
            subtract_offset, subtract_difference, constant_outward),
    E.Mul: (fold_int_constants, constant_to_the_right, multiply_by_one_or_zero, merge_factors, distribute_offset),
    E.FloorDiv: (fold_int_constants, divide_by_one, divide_by_bounds, divide_multiple),
    E.FloorMod: (fold_int_constants, divide_by_one, divide_by_bounds, divide_multiple),
    E.Min: (fold_int_constants, constant_to_the_right, same_operands, common_min_max_term, min_max_by_bounds),
    E.Max: (fold_int_constants, constant_to_the_right, same_operands, common_min_max_term, min_max_by_bounds),
    E.BitAnd: (fold_int_constants,), E.BitOr: (fold_int_constants,), E.BitXor: (fold_int_constants,),
    E.Eq: (fold_comparison, same_operands, constant_right_of_equality, constant_across_comparison),
    E.Ne: (fold_comparison, same_operands, constant_right_of_equality, constant_across_comparison),
    E.Lt: (fold_comparison, same_operands, constant_across_comparison),
    E.Le: (fold_comparison, same_operands, constant_across_comparison),
    E.Gt: (fold_comparison, same_operands, less_than_form),
    E.Ge: (fold_comparison, same_operands, less_than_form),
    E.And: (logic_with_constant,),
    E.Or: (logic_with_constant,),
    E.Not: (push_not_inward,),
    E.Neg: (fold_negation,),
}


def prove(s: ExprSimplifier, cond: E.Expr, facts: list[E.Expr]) -> bool | None:
    """True / False when the (simplified) condition is decided by the bounds or the known facts, else None."""
    if isinstance(cond, E.ConstBool):
        return cond.value
    for fact in facts:
        if same(fact, cond):
            return True
    if isinstance(cond, E.And | E.Or):
        a, b = prove(s, cond.left, facts), prove(s, cond.right, facts)
        if isinstance(cond, E.And):
            return False if False in (a, b) else True if a is True and b is True else None
        return True if True in (a, b) else False if a is False and b is False else None
    if isinstance(cond, E.Not):
        inner = prove(s, cond.operand, facts)
        return None if inner is None else not inner
    if not compares_ints(cond):
        return None
    a, b = s.bounds(cond.left), s.bounds(cond.right)  # type: ignore[attr-defined]
    verdict = _decide(type(cond), a, b)
    if verdict is None:  # the difference may cancel what the two sides share: (j + 1) < (j + 5)
        verdict = _decide(type(cond), s.bounds(s(E.Sub(cond.left, cond.right, cond.left.type.dtype, cond.span))),  # type: ignore[attr-defined]
                          Bounds(0, 0))
    return verdict


def _decide(cls: type, a: Bounds | None, b: Bounds | None) -> bool | None:
    if a is None or b is None:
        return None
    if cls is E.Lt:
        return True if a.hi < b.lo else False if a.lo >= b.hi else None
    if cls is E.Le:
        return True if a.hi <= b.lo else False if a.lo > b.hi else None
    if cls is E.Gt:
        return _decide(E.Lt, b, a)
    if cls is E.Ge:
        return _decide(E.Le, b, a)
    if cls is E.Eq:
        return True if a.single is not None and a.single == b.single else False if a.hi < b.lo or b.hi < a.lo else None
    if cls is E.Ne:
        inner = _decide(E.Eq, a, b)
        return None if inner is None else not inner
    return None

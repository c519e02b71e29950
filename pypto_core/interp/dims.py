"""Dynamic dimensions written as expressions (`pl.Tensor[[M * 2, 64], ...]`).

A parameter's dim may be a `pl.dynamic` var or an expression of one: the machine binds the var from the
argument's actual extent by inverting the expression (M * 2 = 32 gives M = 16), and draws inputs by
evaluating it. Only invertible integer forms are solved: +, -, * by constants, and exact // by a constant
is not invertible, so a var that only appears under // (or Min/Max/...) must also appear plainly elsewhere.
"""

from __future__ import annotations

from collections.abc import Mapping

from pypto_core.ir import expr as E

_EVAL = {
    E.Add: lambda a, b: a + b, E.Sub: lambda a, b: a - b, E.Mul: lambda a, b: a * b,
    E.FloorDiv: lambda a, b: a // b, E.FloorMod: lambda a, b: a % b,
    E.Min: min, E.Max: max,
}


def free_vars(dim: E.Expr) -> list[E.Var]:
    """The vars of a dim expression, in first-appearance order (each once)."""
    out: list[E.Var] = []
    stack = [dim]
    while stack:
        e = stack.pop()
        if isinstance(e, E.Var):
            if all(v is not e for v in out):
                out.append(e)
        elif isinstance(e, E.BinaryExpr):
            stack.extend((e.right, e.left))
        elif isinstance(e, E.UnaryExpr):
            stack.append(e.operand)
    return out


def eval_dim(dim: E.Expr, env: Mapping[str, int]) -> int | None:
    """The dim's value with vars looked up by name in `env`; None when it uses an unknown var or form."""
    if isinstance(dim, E.ConstInt):
        return dim.value
    if isinstance(dim, E.Var):
        value = env.get(dim.name_hint)
        return None if value is None else int(value)
    if isinstance(dim, E.Cast):
        return eval_dim(dim.operand, env)
    fn = _EVAL.get(type(dim))
    if fn is None:
        return None
    left, right = eval_dim(dim.left, env), eval_dim(dim.right, env)  # type: ignore[attr-defined]
    if left is None or right is None or (type(dim) in (E.FloorDiv, E.FloorMod) and right == 0):
        return None
    return int(fn(left, right))


def solve_dim(dim: E.Expr, extent: int) -> tuple[E.Var, int] | None:
    """(var, value) such that `dim` evaluates to `extent`, for a dim with one var appearing once under
    + / - / * by constants; None when the form is not invertible or the extent does not fit it."""
    target, e = extent, dim
    while not isinstance(e, E.Var):
        if isinstance(e, E.Cast):
            e = e.operand
            continue
        if not isinstance(e, (E.Add, E.Sub, E.Mul)):
            return None
        left_const, right_const = eval_dim(e.left, {}), eval_dim(e.right, {})
        if (left_const is None) == (right_const is None):
            return None  # both constant (no var) or the var on both sides
        if isinstance(e, E.Add):
            target -= left_const if left_const is not None else right_const  # type: ignore[operator]
            e = e.right if left_const is not None else e.left
        elif isinstance(e, E.Sub):
            if right_const is not None:
                target, e = target + right_const, e.left
            else:
                target, e = left_const - target, e.right  # type: ignore[operator]
        else:
            factor = left_const if left_const is not None else right_const
            if not factor or target % factor:  # type: ignore[operator]
                return None
            target, e = target // factor, (e.right if left_const is not None else e.left)  # type: ignore[operator]
    return e, target

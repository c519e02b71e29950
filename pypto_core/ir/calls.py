"""The type of a call of a program function, seen from the caller (docs/dsl.md `self.f(...)`)."""

from __future__ import annotations

from collections.abc import Sequence

from pypto_core.ir import expr as E
from pypto_core.ir import types as T
from pypto_core.ir.structural import structural_equal
from pypto_core.ir.utils import substitute


def call_return_type(params: Sequence[E.Var], return_types: Sequence[T.Type], args: Sequence[E.Expr]) -> T.Type:
    """The callee's return type(s) in the caller's terms: a scalar parameter used as a dim becomes the
    argument, and a dynamic dim of a parameter's shape becomes the argument's dim there.
    0 returns -> UnknownType, 1 -> that type, n -> TupleType."""
    mapping: dict[E.Var, E.Expr] = {}
    param_ids = {id(p) for p in params}
    for p, a in zip(params, args):
        if isinstance(p.type, T.ScalarType) and p is not a:
            mapping[p] = a
        pt, at = p.type, a.type
        if isinstance(pt, (T.TensorType, T.TileType)) and isinstance(at, (T.TensorType, T.TileType)):
            for pd, ad in zip(pt.shape, at.shape):
                if isinstance(pd, E.Var) and id(pd) not in param_ids and not structural_equal(pd, ad):
                    mapping[pd] = ad
    rets = [substitute(t, mapping) if mapping else t for t in return_types]
    if not rets:
        return T.UnknownType()
    if len(rets) == 1:
        return rets[0]
    return T.TupleType(rets)

"""Arguments of a `self.f(...)` call against the callee's parameters (unchecked, an FP16 tensor passed for an
INDEX one would be accepted, and tile lowering would then compute something else)."""

from __future__ import annotations

from collections.abc import Sequence

from pypto_core.ir import expr as E
from pypto_core.ir import types as T


def _kind(t: T.Type) -> str:
    if isinstance(t, T.TileType):
        return "tile"
    if isinstance(t, T.TensorType):
        return "tensor"
    if isinstance(t, T.ScalarType):
        return "scalar"
    if isinstance(t, T.TupleType):
        return "tuple"  # a list literal `[3]` passed for a tensor
    return ""


def argument_mismatch(params: Sequence[E.Var], args: Sequence[E.Expr]) -> tuple[int, str] | None:
    """(index, why) of the first argument that cannot be passed for its parameter; None when all can.
    Dims are compared only where both are constants (a pl.dynamic parameter dim takes any extent)."""
    for i, (p, a) in enumerate(zip(params, args)):
        want, got = p.type, a.type
        kw, kg = _kind(want), _kind(got)
        if not kw or not kg:
            continue  # an unknown type (a later method's result) is checked where it is known
        if kw != kg:
            return i, f"is a {kg}, but parameter '{p.name_hint}' is a {kw} ({want})"
        if isinstance(want, (T.ScalarType, T.TupleType)):
            continue  # scalars convert (an INDEX loop variable for an INT32 parameter); tuples are not checked deeper
        if want.dtype is not got.dtype:  # type: ignore[attr-defined]
            return i, f"holds {got.dtype.name}, but parameter '{p.name_hint}' is {want}"  # type: ignore[attr-defined]
        shape_w, shape_g = want.shape, got.shape  # type: ignore[attr-defined]
        if len(shape_w) != len(shape_g):
            return i, f"has rank {len(shape_g)}, but parameter '{p.name_hint}' is {want}"
        for dw, dg in zip(shape_w, shape_g):
            if isinstance(dw, E.ConstInt) and isinstance(dg, E.ConstInt) and dw.value != dg.value:
                return i, f"is {got}, but parameter '{p.name_hint}' is {want}"
    return None

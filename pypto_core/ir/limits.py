"""Bounds every static dimension in the IR keeps (docs/limits.md): 0 .. MAX_DIM, so printed types parse back."""

from __future__ import annotations

from pypto_core.ir.expr import ConstInt
from pypto_core.ir.types import TensorType, TileType, TupleType, Type

MAX_DIM = 2**31 - 1


def out_of_range_dim(t: Type) -> int | None:
    """A static dimension of `t` (or of a tuple element) outside 0 .. MAX_DIM, else None."""
    if isinstance(t, TupleType):
        for element in t.types:
            bad = out_of_range_dim(element)
            if bad is not None:
                return bad
        return None
    if isinstance(t, (TensorType, TileType)):
        for d in t.shape:
            if isinstance(d, ConstInt) and not 0 <= d.value <= MAX_DIM:
                return d.value
    return None

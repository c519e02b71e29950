"""Bounds every static dimension in the IR keeps (docs/limits.md): 1 .. MAX_DIM, so printed types parse back.

A shape dimension of 0 is rejected as in a written type (a tensor or tile of no element has no tile form,
and its printed annotation would not parse); a valid extent of 0 (an empty lane) is not a shape dimension.
"""

from __future__ import annotations

from pypto_core.ir.expr import ConstInt
from pypto_core.ir.types import TensorType, TileType, TupleType, Type

MAX_DIM = 2**31 - 1
MIN_DIM = 1


def out_of_range_dim(t: Type) -> int | None:
    """A static shape dimension of `t` (or of a tuple element) outside MIN_DIM .. MAX_DIM, else None."""
    if isinstance(t, TupleType):
        for element in t.types:
            bad = out_of_range_dim(element)
            if bad is not None:
                return bad
        return None
    if isinstance(t, (TensorType, TileType)):
        for d in t.shape:
            if isinstance(d, ConstInt) and not MIN_DIM <= d.value <= MAX_DIM:
                return d.value
    return None


def out_of_range_valid(t: Type) -> int | None:
    """A static valid extent of `t` (or of a tuple element) outside 0 .. MAX_DIM, else None (0: an empty lane)."""
    if isinstance(t, TupleType):
        for element in t.types:
            bad = out_of_range_valid(element)
            if bad is not None:
                return bad
        return None
    view = t.tile_view if isinstance(t, TileType) else t.tensor_view if isinstance(t, TensorType) else None
    for d in (view.valid_shape or ()) if view is not None else ():
        if isinstance(d, ConstInt) and not 0 <= d.value <= MAX_DIM:
            return d.value
    return None

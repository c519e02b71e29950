"""Shape helpers shared by the tile and tensor op families."""

from __future__ import annotations

from collections.abc import Sequence

from pypto_core.ir.expr import ConstInt, Expr
from pypto_core.ir.types import ScalarType
from pypto_core.ops.build import static_int, tuple_elements


def shape_operand(op: str, e: Expr) -> tuple[Expr, ...]:
    """A shape argument: a non-empty list of integer dims, the constant ones positive."""
    dims = tuple_elements(e)
    if not dims:
        raise TypeError(f"{op}: the shape must have at least one dimension")
    for d in dims:
        if not isinstance(d.type, ScalarType) or not d.type.dtype.is_int():
            raise TypeError(f"{op}: shape dimensions must be integers, got {d.type}")
        v = static_int(d)
        if v is not None and v <= 0:
            raise ValueError(f"{op}: shape dimensions must be positive, got {v}")
    return dims


def product(dims: Sequence[int]) -> int:
    out = 1
    for d in dims:
        out *= d
    return out


def rescale_extent(op: str, extent: Expr, old_bits: int, new_bits: int) -> Expr:
    """A last-dim extent re-read with another element width (reinterpret_view)."""
    v = static_int(extent)
    if old_bits == new_bits:
        return extent
    if v is not None:
        if (v * old_bits) % new_bits:
            raise TypeError(f"{op}: a last dim of {v} x {old_bits} bits is not a whole number of "
                            f"{new_bits}-bit elements")
        return ConstInt(v * old_bits // new_bits, extent.type.dtype, extent.span)
    if old_bits % new_bits == 0:
        return extent * (old_bits // new_bits)
    raise TypeError(f"{op}: a dynamic last dim cannot be reinterpreted to a wider dtype; give shape=")


def clip_valid(valid: Sequence[Expr], offsets: Sequence[Expr], src_valid: Sequence[Expr]) -> list[Expr]:
    """The requested valid extents clipped to what the source holds from the offset (static dims)."""
    out: list[Expr] = []
    for v, o, s in zip(valid, offsets, src_valid):
        sv, so, ss = static_int(v), static_int(o), static_int(s)
        if sv is not None and so is not None and ss is not None and so + sv > ss:
            out.append(ConstInt(max(0, ss - so), v.type.dtype, v.span))
        else:
            out.append(v)
    return out


def check_indices(op: str, e: Expr, rank: int) -> None:
    """Element indices of read/write: one integer scalar per dimension."""
    idx = tuple_elements(e)
    if len(idx) != rank:
        raise TypeError(f"{op}: {len(idx)} indices for a {rank}-D operand")
    for i in idx:
        if not isinstance(i.type, ScalarType) or not i.type.dtype.is_int():
            raise TypeError(f"{op}: indices must be integer scalars, got {i.type}")

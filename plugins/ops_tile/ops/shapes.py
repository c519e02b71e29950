"""Shape helpers shared by the tile and tensor op families."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pypto_core.ir.expr import ConstInt, Expr
from pypto_core.ir.types import ScalarType
from pypto_core.ops.build import static_dims, static_int, tuple_elements


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


ATOMIC_ADD_DTYPES = ("FP32", "BF16", "FP16", "INT32", "INT16", "INT8")


def check_atomic_dtype(op: str, atomic: int, dtype: Any) -> None:
    """OPS.md: an atomic add (atomic=1) needs FP32 / BF16 / FP16 / INT32 / INT16 / INT8 elements."""
    if int(atomic) == 1 and dtype.name not in ATOMIC_ADD_DTYPES:
        raise TypeError(f"{op}: atomic add needs {', '.join(ATOMIC_ADD_DTYPES)} elements, got {dtype.name}")


def wunion(shape: Sequence[Expr], valid: Sequence[Expr], source: Sequence[Expr],
           offsets: Sequence[Expr]) -> list[Expr] | None:
    """OPS.md WUNION: the target's valid region grown by a written window; None = unchanged.

    Unchanged when the target is fully valid or the window is not static. An origin-anchored write makes
    each extent the larger of the two; otherwise one axis may grow (the others must already be covered from
    offset 0), capped at the target extent, when the window starts inside or right after the valid part."""
    from pypto_core.ir.types import dims_equal

    if dims_equal(valid, shape) or len(source) != len(shape) or len(offsets) != len(shape):
        return None
    t, v, s, o = (static_dims(x) for x in (shape, valid, source, offsets))
    if t is None or v is None or s is None or o is None:
        return None
    if all(x == 0 for x in o):
        grown = [min(max(a, b), d) for a, b, d in zip(v, s, t)]
    else:
        moved = [i for i in range(len(t)) if not (o[i] == 0 and s[i] >= v[i])]
        if len(moved) != 1 or o[moved[0]] > v[moved[0]]:
            return None
        grown = list(v)
        grown[moved[0]] = min(max(v[moved[0]], o[moved[0]] + s[moved[0]]), t[moved[0]])
    return [ConstInt(g, d.type.dtype, d.span) for g, d in zip(grown, valid)]

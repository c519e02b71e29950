"""Shape and valid-region rules the type deducers of several families share (tiles and tensors)."""

from __future__ import annotations

from collections.abc import Sequence

from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import PadValue, TensorLayout
from pypto_core.ir.expr import ConstInt, Expr
from pypto_core.ir.types import ScalarType, TensorType, TensorView, dims_equal
from pypto_core.ops.build import dims_product, shape_text, static_dims, static_int, tuple_elements


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


def static_shape(op: str, e: Expr, what: str = "shape") -> list[Expr]:
    """A shape operand of constant positive dims."""
    dims = list(tuple_elements(e))
    if not dims:
        raise TypeError(f"{op}: {what} must have at least one dimension")
    for d in dims:
        v = static_int(d)
        if v is None:
            raise TypeError(f"{op}: {what} dims must be constants, got {shape_text(dims)}")
        if v <= 0:
            raise ValueError(f"{op}: {what} dims must be positive, got {shape_text(dims)}")
    return dims


def product(dims: Sequence[int]) -> int:
    out = 1
    for d in dims:
        out *= d
    return out


def require_min_rank(op: str, dims: Sequence[Expr], rank: int, what: str) -> None:
    if len(dims) < rank:
        raise TypeError(f"{op}: {what} must be at least {rank}-D, got {len(dims)}-D {shape_text(dims)}")


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


def check_atomic_dtype(op: str, atomic: int, dtype: DataType) -> None:
    """An atomic add (atomic=1) needs FP32 / BF16 / FP16 / INT32 / INT16 / INT8 elements."""
    if int(atomic) == 1 and dtype.name not in ATOMIC_ADD_DTYPES:
        raise TypeError(f"{op}: atomic add needs {', '.join(ATOMIC_ADD_DTYPES)} elements, got {dtype.name}")


def wunion(shape: Sequence[Expr], valid: Sequence[Expr], source: Sequence[Expr],
           offsets: Sequence[Expr]) -> list[Expr] | None:
    """The target's valid region grown by a window written into it (a store, an assemble); None = unchanged.

    Unchanged when the target is fully valid or the window is not static. An origin-anchored write makes
    each extent the larger of the two; otherwise one axis may grow (the others must already be covered from
    offset 0), capped at the target extent, when the window starts inside or right after the valid part."""
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


# -- tensors ---------------------------------------------------------------------------------------
def tensor_valid(t: TensorType) -> tuple[Expr, ...]:
    """A tensor's valid extents (its shape when its view declares none)."""
    view = t.tensor_view
    return view.valid_shape if view is not None and view.valid_shape else t.shape


def with_view_valid(t: TensorType, valid: Sequence[Expr]) -> TensorType:
    """The tensor type with another view valid region (no view when nothing is left to say)."""
    old = t.tensor_view or TensorView()
    if not old.stride and old.layout in (None, TensorLayout.ND) and old.pad is PadValue.null and \
            dims_equal(valid, t.shape):
        return TensorType(t.shape, t.dtype, t.memref)
    return TensorType(t.shape, t.dtype, t.memref,
                      TensorView(stride=old.stride, layout=old.layout, valid_shape=list(valid), pad=old.pad))


def row_major_strides(shape: Sequence[Expr]) -> list[Expr]:
    """Element strides of a packed row-major tensor: the product of the dims to the right of each."""
    return [dims_product(shape[i + 1:]) for i in range(len(shape))]


def fresh(t: TensorType, dtype: DataType | None = None) -> TensorType:
    """A new packed tensor result ("fresh, valid <- operand"): only the operand's valid region carries over,
    not its strides or layout (a transposed view's result is not strided)."""
    dtype = dtype or t.dtype
    view = t.tensor_view
    if view is None:
        return t if t.memref is None and dtype is t.dtype else TensorType(t.shape, dtype)
    valid = TensorView(valid_shape=view.valid_shape) if view.valid_shape else None
    return TensorType(t.shape, dtype, None, valid)


def static_mismatch(a: Expr, b: Expr) -> bool:
    """Two extents that are both constant and differ."""
    x, y = static_int(a), static_int(b)
    return x is not None and y is not None and x != y


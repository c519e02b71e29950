"""numpy helpers the ops' semantics share (the evaluate signature: pypto_core/interp/context.py; docs/plugins.md,
the evaluate contract): call-site specialisation, windows of arrays, valid regions, FP32 computation of
low-precision floats, aliasing views of Acc tiles, index checks of the index-addressed ops."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from pypto_core.interp.context import EvalContext
from pypto_core.interp.dtypes import is_float_dtype, is_int_dtype, np_dtype, poisoned
from pypto_core.interp.errors import MachineError
from pypto_core.interp.gm_race import note
from pypto_core.ir.enums import MemorySpace
from pypto_core.ir.expr import Call, ConstInt, Expr, MakeTuple
from pypto_core.ir.types import TensorType, TileType

Evaluate = Callable[[EvalContext, Call, list, dict], Any]
# evaluate.specialize(code, call, kwargs) -> an evaluate for that one call site, or None (calls.py).
Specializer = Callable[[Any, Call, dict], "Evaluate | None"]


def specialized_by(specializer: Specializer) -> Callable[[Evaluate], Evaluate]:
    """Decorator: the machine asks `specializer` once per call site for a faster equivalent evaluate.

    A specialised evaluate computes exactly what the general one does; it may assume what the call's
    types and constant operands say, and hands anything else back to the general evaluate.
    """
    def attach(evaluate: Evaluate) -> Evaluate:
        evaluate.specialize = specializer  # type: ignore[attr-defined]
        return evaluate

    return attach


def const_ints(e: Expr) -> tuple[int, ...] | None:
    """The values of a MakeTuple of integer constants (an offsets / shapes operand), else None."""
    if isinstance(e, MakeTuple) and all(isinstance(x, ConstInt) for x in e.elements):
        return tuple(x.value for x in e.elements)
    return None


def static_type_dtype(t: Any) -> np.dtype | None:
    """The numpy dtype of a tile / tensor / scalar type, or None."""
    dtype = getattr(t, "dtype", None)
    if dtype is None:
        return None
    try:
        return np_dtype(dtype)
    except Exception:  # no numpy representation: the general evaluate reports it
        return None


def full_valid(code: Any, t: Any) -> bool:
    """A tile / tensor type whose constant valid region is its whole constant shape."""
    if not isinstance(t, (TileType, TensorType)) or not all(isinstance(d, ConstInt) for d in t.shape):
        return False
    return code.static_valid(t) == tuple(d.value for d in t.shape)


def result_np_dtype(call: Call) -> np.dtype:
    """The numpy dtype of the call's result type (a tile / tensor / scalar)."""
    dtype = getattr(call.type, "dtype", None)
    if dtype is None:
        raise MachineError(f"{call.op.name}: its result type {call.type} has no dtype")
    return np_dtype(dtype)


def wide(x: Any) -> Any:
    """Operands of low-precision floats are computed in FP32 (see interp/dtypes.COMPUTE_IN_FP32)."""
    dt = getattr(x, "dtype", None)
    if dt is not None and is_float_dtype(dt) and dt != np.float32 and dt != np.float64:
        return np.asarray(x, dtype=np.float32) if isinstance(x, np.ndarray) else np.float32(x)
    return x


def as_ints(values: Sequence[Any] | Any) -> tuple[int, ...]:
    """An evaluated MakeTuple (or a single scalar) as Python ints."""
    if isinstance(values, (tuple, list)):
        return tuple(map(int, values))
    return (int(values),)


def window(offsets: Sequence[int], extents: Sequence[int]) -> tuple[slice, ...]:
    return tuple(slice(o, o + e) for o, e in zip(offsets, extents))


def valid_of(ctx: EvalContext, call: Call, index: int) -> tuple[int, ...]:
    """The valid extents of operand `index` of the call, in the current frame."""
    return ctx.valid_shape(call.args[index].type)


def read_window(src: np.ndarray, offsets: Sequence[int], extents: Sequence[int], shape: Sequence[int],
                what: str, view: bool = False) -> np.ndarray:
    """A fresh array of `shape`: src[offsets : offsets + extents] at its origin, poison elsewhere.

    Extents are clipped to what the source holds (a window hanging off the end reads poison there).
    With `view` (the caller knows that nothing writes `src` while the result lives: EvalContext.
    unchanging) a window that lies inside the source and fills the shape is a view instead (read-only:
    the machine binds such a source as a read-only view).
    """
    if len(offsets) != src.ndim:
        raise MachineError(f"{what}: {len(offsets)} offset(s) for a {src.ndim}-D source")
    lead = src.ndim - len(shape)
    if lead == 0 and tuple(extents) == tuple(shape) and all(
            0 <= o and o + e <= d for o, e, d in zip(offsets, extents, src.shape)):
        part = src[window(offsets, extents)]  # the common case: nothing to poison
        return part if view else part.copy()
    out = poisoned(tuple(shape), src.dtype)
    clipped = []
    for axis, (o, e) in enumerate(zip(offsets, extents)):
        if o < 0:
            raise MachineError(f"{what}: negative offset {o} on dimension {axis}")
        clipped.append(max(0, min(e, src.shape[axis] - o)))
    if any(c == 0 for c in clipped):
        return out
    source = src[window(offsets, clipped)]
    source = source.reshape(source.shape[lead:]) if lead > 0 else source
    out[tuple(slice(0, c) for c in clipped[lead:])] = source
    return out


def write_window(dst: np.ndarray, offsets: Sequence[int], value: np.ndarray, extents: Sequence[int], what: str,
                 accumulate: bool = False) -> None:
    """dst[offsets : offsets + extents] = value[:extents] in place (leading dims of size 1 allowed)."""
    if len(offsets) != dst.ndim:
        raise MachineError(f"{what}: {len(offsets)} offset(s) for a {dst.ndim}-D target")
    lead = dst.ndim - len(extents)
    full = (1,) * lead + tuple(extents)
    for axis, (o, e) in enumerate(zip(offsets, full)):
        if o < 0 or o + e > dst.shape[axis]:
            raise MachineError(f"{what} writes past the end of dimension {axis}: offset {o} + extent {e} "
                               f"exceeds the target extent {dst.shape[axis]}")
    if any(e == 0 for e in full):
        return
    part = value[tuple(slice(0, e) for e in extents)].reshape(full)
    region = window(offsets, full)
    if accumulate:
        dst[region] = (wide(dst[region]) + wide(part)).astype(dst.dtype)
    else:
        dst[region] = part.astype(dst.dtype, copy=False)


def finish(value: Any, dt: np.dtype, operands: tuple[Any, ...] = ()) -> np.ndarray:
    """The result as a fresh array of dtype `dt`: an array the op just made is kept as it is."""
    if (value.__class__ is np.ndarray and value.dtype == dt and value.base is None
            and all(value is not x for x in operands)):
        return value
    return np.asarray(value).astype(dt)  # astype copies: the result is always a fresh array


def compute_operand(x: Any, dt: np.dtype) -> Any:
    """An operand as an element-wise op computes it: low-precision floats in FP32 (`wide`), and an integer or
    BOOL operand of a float result in that float's compute type -- numpy would compute `sqrt` of an INT8 / INT4
    array in FP16, while the tile form converts the operand first (the promoted cast ConvertTensorToTileOps
    writes)."""
    x = wide(x)
    xdt = getattr(x, "dtype", None)
    if xdt is not None and is_float_dtype(dt) and (is_int_dtype(xdt) or xdt == np.bool_):
        return np.asarray(x).astype(np.float64 if dt == np.float64 else np.float32)
    return x


# cmp_type of tile.cmp / tensor.cmp and cmp_mode of gather_compare (PyPTO's order): EQ, NE, LT, LE, GT, GE.
CMP_FNS: tuple[Callable[[Any, Any], Any], ...] = (np.equal, np.not_equal, np.less, np.less_equal,
                                                  np.greater, np.greater_equal)


# -- aliasing views ----------------------------------------------------------------------------------
# Spaces whose views alias their parent on the reference machine. Acc: the cube writes an accumulator in
# place (matmul_acc into a window of a bigger Acc tile, the corpus' split-N/-M pattern). Vec / Mat views
# stay copies: the compiler's own lowering rebinds Vec windows by value (assemble into a slice of a loaded
# tile must not change the tile), and no corpus program writes through a Vec view.
ALIASING_SPACES = frozenset({MemorySpace.Acc})


def aliases(call: Any) -> bool:
    """Whether this view call's source lives in an aliasing space."""
    return getattr(call.args[0].type, "memory_space", None) in ALIASING_SPACES


def alias_view(ctx: Any, call: Any, src: np.ndarray, index: tuple[slice, ...]) -> np.ndarray | None:
    """The view src[index] at the result's shape, registered as aliasing src's buffer; None when the
    source cannot be written (a read-only array) or numpy cannot make a view."""
    base = ctx.alias_target(src)
    base = src if base is None else base
    if not base.flags.writeable:
        return None
    target = base[index].reshape(ctx.shape(call.type))
    if not np.may_share_memory(target, base):
        return None
    valid = ctx.valid_shape(call.type)
    # A narrower valid region is poisoned by the machine: then the value is a copy that writes through.
    value = target if valid == target.shape else target.copy()
    ctx.bind_alias(value, target)
    return value


# -- index-addressed ops ------------------------------------------------------------------------------
def checked_indices(flat_index: np.ndarray, size: int, op: str) -> np.ndarray:
    """Flat indices as int64; one outside a source of `size` elements is a MachineError, not a silent wrap."""
    idx = flat_index.astype(np.int64)
    bad = (idx < 0) | (idx >= size)
    if bad.any():
        first = tuple(int(i) for i in np.argwhere(bad)[0])
        raise MachineError(f"{op}: index {int(idx[first])} at {list(first)} is outside a source of {size} elements")
    return idx


def valid_mask(ctx: Any, call: Any, index: int, shape: tuple[int, ...]) -> np.ndarray | None:
    """Which elements of tile operand `index` lie in its valid region (None: all of them).

    Index-addressed ops read an index only where it is valid: an empty lane's replay (valid [0, 0]) or a
    ragged tail holds poison indices there, which address nothing."""
    if not isinstance(call.args[index].type, TileType):
        return None
    valid = valid_of(ctx, call, index)
    if tuple(valid) == tuple(shape):
        return None
    mask = np.zeros(shape, dtype=bool)
    mask[tuple(slice(0, v) for v in valid)] = True
    return mask


def safe_indices(idx: np.ndarray, mask: np.ndarray | None) -> np.ndarray:
    """The indices with the invalid ones replaced by 0 (their results are poisoned afterwards)."""
    return idx if mask is None else np.where(mask, idx, 0)


def poison_outside(values: np.ndarray, mask: np.ndarray | None) -> np.ndarray:
    if mask is None:
        return values
    out = np.array(values, copy=True)
    out[~mask] = poisoned((1,), out.dtype)[0]
    return out


def note_elements(ctx: Any, call: Any, index: int, array: np.ndarray, flat: np.ndarray, kind: str) -> None:
    """Report each element of `array` at the flat indices to the GM race check."""
    for f in np.unique(flat.reshape(-1)):
        pos = np.unravel_index(int(f), array.shape)
        note(ctx, call, index, kind, array[tuple(slice(p, p + 1) for p in pos)])


# -- element-wise ops computed as they are ----------------------------------------------------------------
_WIDE_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def computed_as_is(dt: np.dtype) -> bool:
    """A result dtype an element-wise op computes in directly (not a low-precision float, which is computed in
    FP32 and rounded once): operands already of this dtype are their own compute operands."""
    return not is_float_dtype(dt) or dt in _WIDE_FLOATS


def direct_unary(fn: Callable[[Any], Any], general: Evaluate) -> Evaluate:
    """`general` (finish(fn(compute_operand(a, dt)), dt, (a,))) with a per-call-site fast path: an operand of
    the result's dtype, which `compute_operand` returns as it is, goes to `fn` directly; the machine's fixed
    cost per element-wise op is mostly these per-execution dtype questions (docs/architecture.md, performance)."""

    def specialize(code: Any, call: Any, kwargs: dict) -> Evaluate | None:
        dt = result_np_dtype(call)
        if not computed_as_is(dt):
            return None
        ndarray = np.ndarray

        def evaluate(ctx: Any, call: Any, args: list, kwargs: dict) -> Any:
            a = args[0]
            if getattr(a, "dtype", None) != dt:
                return general(ctx, call, args, kwargs)
            out = fn(a)
            if out.__class__ is ndarray and out.dtype == dt and out.base is None and out is not a:
                return out
            return finish(out, dt, (a,))

        return evaluate

    general.specialize = specialize  # type: ignore[attr-defined]
    return general


def direct_binary(fn: Callable[[Any, Any], Any], general: Evaluate) -> Evaluate:
    """`general` (finish(fn(compute_operand(a, dt), compute_operand(b, dt)), dt, (a, b))) with the fast path of
    `direct_unary` for two operands of the result's dtype."""

    def specialize(code: Any, call: Any, kwargs: dict) -> Evaluate | None:
        dt = result_np_dtype(call)
        if not computed_as_is(dt):
            return None
        ndarray = np.ndarray

        def evaluate(ctx: Any, call: Any, args: list, kwargs: dict) -> Any:
            a, b = args[0], args[1]
            if getattr(a, "dtype", None) != dt or getattr(b, "dtype", None) != dt:
                return general(ctx, call, args, kwargs)
            out = fn(a, b)
            if out.__class__ is ndarray and out.dtype == dt and out.base is None and out is not a and out is not b:
                return out
            return finish(out, dt, (a, b))

        return evaluate

    general.specialize = specialize  # type: ignore[attr-defined]
    return general

"""Moving data: tile.load / store / move / create / full / assemble / extract / read / write /
gather_row, and the tensor-side create / full / assemble / read / write / dim / expand_clone.

Loads read only the requested valid window (what lies past the end of the source reads as poison);
stores write only the tile's valid region (or the explicit `shapes` extents), in place, into the
caller's tensor, and return that same tensor (tensors are passed by reference).

While tasks run concurrently (a core group, the lanes of a split_aiv fork) every tensor window an op
reads or writes is reported to the GM race check (pypto_core/interp/gm_race.py); otherwise (`ctx.race
is None`) that costs one attribute test.

A tile.store whose stored extent is 0 on some axis is an error (issue 12 item 3): the hardware store
asserts a positive valid row count (TSTORE), so an empty lane's store must be guarded, not executed.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pypto_core.interp.dtypes import poisoned
from pypto_core.interp.errors import MachineError
from pypto_core.interp.gm_race import READ, WRITE, note, notes_own_gm_accesses, window_view
from pypto_core.interp.limits import check_allocation
from pypto_plugins.ops_tile.semantics.common import (
    Evaluate,
    as_ints,
    const_ints,
    read_window,
    result_np_dtype,
    specialized_by,
    static_type_dtype,
    valid_of,
    write_window,
)
from pypto_plugins.ops_tile.semantics.views import aliases


def _specialize_load(code: Any, call: Any, kwargs: dict) -> Evaluate | None:
    """A load of a constant 2-D shape that is all valid: slicing, with the general load for the rest."""
    shape = const_ints(call.args[2])
    valid = const_ints(call.args[3]) if len(call.args) > 3 else shape
    if shape is None or valid != shape or len(shape) != 2:
        return None
    rows, cols = shape

    def load_2d(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
        src, offsets = args[0], args[1]
        if src.__class__ is np.ndarray and src.ndim == 2 and len(offsets) == 2:
            r, c = offsets
            if r >= 0 and c >= 0:
                part = src[r:r + rows, c:c + cols]
                if part.shape == shape:  # inside the source (numpy clips a window hanging off the end)
                    if ctx.race is not None:
                        note(ctx, call, 0, READ, part)
                    return part if ctx.unchanging(call, 0) else part.copy()  # a read-only view, see read_window
        return load(ctx, call, args, kwargs)  # past the end (poison), errors

    return load_2d


@notes_own_gm_accesses
@specialized_by(_specialize_load)
def load(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    """tile.load(tensor, offsets, shapes, valid_shape): the valid window, poison around it.

    A snapshot: a later store to the tensor does not change the tile. It is a read-only numpy view
    of the tensor when the machine knows that nothing writes the tensor while the tile can be read
    (EvalContext.unchanging), else a copy."""
    src, offsets, shape = args[0], as_ints(args[1]), as_ints(args[2])
    valid = as_ints(args[3]) if len(args) > 3 else shape
    if len(valid) == 2 < len(shape):
        extents = _flat_extents(shape, valid)
        tile = read_window(src, offsets, extents, shape, "tile.load").reshape(int(np.prod(shape[:-1])), shape[-1])
    else:
        extents = valid if valid == shape else tuple(min(v, s) for v, s in zip(valid, shape))
        # A view when nothing writes the source while this function runs (tiles cannot outlive it).
        tile = read_window(src, offsets, extents, shape, "tile.load", view=ctx.unchanging(call, 0))
    if ctx.race is not None:
        note(ctx, call, 0, READ, window_view(src, offsets, extents))
    return tile


def _flat_extents(shape: tuple, valid: tuple) -> tuple:
    """An N-D window read into a 2-D tile (FlattenTileNdTo2D): valid rows are whole leading blocks."""
    middle = int(np.prod(shape[1:-1]))
    return (min(-(-valid[0] // middle), shape[0]), *shape[1:-1], min(valid[1], shape[-1]))


@notes_own_gm_accesses
def store(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    """tile.store(tile, offsets, out[, shapes], atomic=): write the valid region into `out` in place."""
    tile, offsets, out = args[0], as_ints(args[1]), args[2]
    extents = as_ints(args[3]) if len(args) > 3 else valid_of(ctx, call, 0)
    if 0 in extents:
        raise MachineError(_empty_store_message(ctx, call, extents), call.span)
    if tile.ndim == 2 < len(extents):
        # A flattened tile written back to its N-D window: its rows are the window's leading blocks.
        tile = tile[:int(np.prod(extents[:-1])), :extents[-1]].reshape(extents)
    atomic = int(kwargs.get("atomic") or 0) == 1
    write_window(out, offsets, tile, extents, "tile.store", accumulate=atomic)
    if ctx.race is not None:
        _note_written(ctx, call, 2, out, offsets, extents, atomic)
    return out


def _empty_store_message(ctx: Any, call: Any, extents: tuple) -> str:
    axis = extents.index(0)
    what = ("valid row count", "valid column count")[axis] if len(extents) == 2 else f"extent on axis {axis}"
    source = "its `shapes` operand" if len(call.args) > 3 else "the stored tile's valid shape"
    return (f"tile.store at {_span_text(call.span)} ({ctx.where()}) stores an empty window: {source} is "
            f"{list(extents)}, a {what} of 0; the hardware store asserts a positive valid row count (TSTORE); "
            f"guard the store with `if extent > 0` (an empty lane's store must not run)")


def _span_text(span: Any) -> str:
    return span.to_string() if hasattr(span, "to_string") else str(span)


def _note_written(ctx: Any, call: Any, index: int, target: np.ndarray, offsets: tuple, extents: Any,
                  atomic: bool = False) -> None:
    """The window write_window wrote (leading dims of size 1 where the value has fewer dims)."""
    lead = target.ndim - len(extents)
    note(ctx, call, index, WRITE, window_view(target, offsets, (1,) * lead + tuple(extents)), atomic)


def _specialize_move(code: Any, call: Any, kwargs: dict) -> Evaluate | None:
    dt = static_type_dtype(call.type)
    if dt is None or aliases(call):
        return None

    def move_to(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
        x = args[0]
        return x if x.dtype == dt else x.astype(dt)

    return move_to


@specialized_by(_specialize_move)
def move(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    """tile.move: the same values in another memory space (layouts are not modelled).

    Tiles are values that nothing mutates, so the operand itself is the result (no copy); except a tile of
    an aliasing space (Acc), whose buffer a later matmul_acc into a slice of it may write: a copy."""
    dt = result_np_dtype(call)
    if aliases(call):
        return args[0].astype(dt, copy=True)
    return args[0] if args[0].dtype == dt else args[0].astype(dt)


def create(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    """tile.create / tensor.create: uninitialised (poison) unless `init_value` is given."""
    dt = result_np_dtype(call)
    shape = as_ints(args[0]) if args else ctx.shape(call.type)
    check_allocation(shape, dt, call.op.name, call.span)
    init = kwargs.get("init_value")
    if init is not None:
        return np.full(shape, init, dtype=dt)
    return poisoned(shape, dt)


def full(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    """tile.full / tensor.full(shape, value)."""
    value = args[1] if len(args) > 1 else kwargs.get("value", 0)
    shape, dt = as_ints(args[0]), result_np_dtype(call)
    check_allocation(shape, dt, call.op.name, call.span)
    return np.full(shape, value, dtype=dt)


def assemble_tile(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    """tile.assemble(target, source, offset): a copy of target with source's valid region written in."""
    out = np.array(args[0], copy=True)
    write_window(out, as_ints(args[2]), args[1], valid_of(ctx, call, 1), "tile.assemble",
                 accumulate=int(kwargs.get("atomic") or 0) == 1)
    return out


@notes_own_gm_accesses
def assemble_tensor(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    """tensor.assemble(target, source, offset): writes source into the caller's target in place."""
    target, source = args[0], args[1]
    extents = valid_of(ctx, call, 1) if hasattr(call.args[1].type, "shape") else np.shape(source)
    atomic = int(kwargs.get("atomic") or 0) == 1
    write_window(target, as_ints(args[2]), np.asarray(source), extents, "tensor.assemble", accumulate=atomic)
    if ctx.race is not None:
        _note_written(ctx, call, 0, target, as_ints(args[2]), extents, atomic)
        if isinstance(source, np.ndarray):
            note(ctx, call, 1, READ, source)  # a tensor source is read whole (note skips tiles)
    return target


@notes_own_gm_accesses
def extract(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    """tile.extract(src, row, col, shape): the [rows, cols] window at (row, col)."""
    shape = as_ints(args[3]) if len(args) > 3 else ctx.shape(call.type)
    offsets = (int(args[1]), int(args[2]))
    if ctx.race is not None:
        note(ctx, call, 0, READ, window_view(args[0], offsets, shape))
    return read_window(args[0], offsets, shape, shape, "tile.extract").astype(result_np_dtype(call))


@notes_own_gm_accesses
def read(ctx: Any, call: Any, args: list, kwargs: dict) -> Any:
    """tile.read / tensor.read(x, indices): one element."""
    index = as_ints(args[1])
    try:
        value = args[0][index]
    except IndexError:
        raise MachineError(f"{call.op.name}: index {list(index)} is outside shape {list(args[0].shape)}",
                           call.span) from None
    if ctx.race is not None:
        note(ctx, call, 0, READ, _element(args[0], index))
    return value


@notes_own_gm_accesses
def write_tensor(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    """tensor.write(t, indices, value): in place; returns the tensor."""
    index = as_ints(args[1])
    args[0][index] = args[2]
    if ctx.race is not None:
        note(ctx, call, 0, WRITE, _element(args[0], index))
    return args[0]


def _element(t: np.ndarray, index: tuple) -> np.ndarray:
    """The one-element window at `index` (negative indices count from the end, as numpy's)."""
    return window_view(t, [i % d for i, d in zip(index, t.shape)], (1,) * len(index))


def write_tile(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    """tile.write(t, indices, value): a copy with one element replaced."""
    out = np.array(args[0], copy=True)
    out[as_ints(args[1])] = args[2]
    return out


@notes_own_gm_accesses
def expand_clone(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    """tensor.expand_clone(input, target): the input broadcast to the target's shape, written into the
    caller's target in place; returns it (converted when the promoted dtype is wider)."""
    target = args[1]
    target[...] = np.broadcast_to(args[0], target.shape).astype(target.dtype, copy=False)
    if ctx.race is not None:
        if isinstance(args[0], np.ndarray):
            note(ctx, call, 0, READ, args[0])
        note(ctx, call, 1, WRITE, target)
    dt = result_np_dtype(call)
    return target if target.dtype == dt else target.astype(dt)


@notes_own_gm_accesses
def dim(ctx: Any, call: Any, args: list, kwargs: dict) -> Any:
    """tensor.dim(t, axis)."""
    return np.int64(np.shape(args[0])[int(args[1])])


@notes_own_gm_accesses
def gather_row(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    """tile.gather_row(dst, src, dst_offset, src_offset, shapes[, valid_shape], transpose=).

    A copy of dst with the `shapes` window of the tensor src at src_offset (transposed if asked)
    written at dst_offset; the machine applies the optional valid_shape through the result type.
    """
    dst, src = args[0], args[1]
    dst_off, src_off, shape = as_ints(args[2]), as_ints(args[3]), as_ints(args[4])
    part = read_window(src, src_off, shape, shape, "tile.gather_row")
    if ctx.race is not None:
        note(ctx, call, 1, READ, window_view(src, src_off, shape))
    if bool(kwargs.get("transpose", False)):
        part = part.T
    out = np.array(dst, copy=True)
    write_window(out, dst_off, part, part.shape, "tile.gather_row")
    return out


def evaluators() -> dict[str, Evaluate]:
    return {
        "tile.load": load, "tile.store": store, "tile.move": move, "tile.create": create, "tile.full": full,
        "tile.assemble": assemble_tile, "tile.extract": extract, "tile.read": read, "tile.write": write_tile,
        "tile.gather_row": gather_row,
        "tensor.create": create, "tensor.full": full, "tensor.assemble": assemble_tensor,
        "tensor.read": read, "tensor.write": write_tensor, "tensor.dim": dim, "tensor.expand_clone": expand_clone,
    }

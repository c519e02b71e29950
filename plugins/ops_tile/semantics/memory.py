"""The numpy semantics of the memory family's ops (../families/memory.py), imported when the reference machine
first runs an op, never by a process that only compiles (pypto_core/ops/semantics_module.py)."""

from __future__ import annotations

from typing import Any

import numpy as np

from pypto_core.interp.errors import MachineError
from pypto_core.interp.gm_race import READ, WRITE, note, notes_own_gm_accesses, window_view
from pypto_core.ops.semantics_module import Semantics
from pypto_plugins.ops_tile.common.mx_layout import logical, mx_layout_of, write_logical
from pypto_plugins.ops_tile.common.semantics import (
    Evaluate,
    aliases,
    as_ints,
    const_ints,
    read_window,
    result_np_dtype,
    specialized_by,
    static_type_dtype,
    valid_of,
    wide,
    write_window,
)

semantics = Semantics()


def _specialize_load(code: Any, call: Any, kwargs: dict) -> Evaluate | None:
    """A load of a constant 2-D shape that is all valid: slicing, with the general load for the rest."""
    shape = const_ints(call.args[2])
    valid = const_ints(call.args[3]) if len(call.args) > 3 else shape
    if shape is None or valid != shape or len(shape) != 2 or mx_layout_of(call.args[0].type) is not None:
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


@semantics("tile.load")
@notes_own_gm_accesses
@specialized_by(_specialize_load)
def load(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    """tile.load(tensor, offsets, shapes, valid_shape): the valid window, poison around it."""
    src, offsets, shape = args[0], as_ints(args[1]), as_ints(args[2])
    valid = as_ints(args[3]) if len(args) > 3 else shape
    layout = mx_layout_of(call.args[0].type)
    if layout is not None:  # an MX scale tensor: its bytes in block order (common/mx_layout.py)
        if ctx.race is not None:
            note(ctx, call, 0, READ, src)
        return read_window(logical(src, layout), offsets, valid if valid == shape else
                           tuple(min(v, s) for v, s in zip(valid, shape)), shape, "tile.load")
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


@semantics("tile.store")
@notes_own_gm_accesses
def store(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    """tile.store(tile, offsets, out[, shapes], atomic=): write the valid region into `out` in place."""
    tile, offsets, out = args[0], as_ints(args[1]), args[2]
    extents = as_ints(args[3]) if len(args) > 3 else valid_of(ctx, call, 0)
    if 0 in extents:
        raise MachineError(_empty_store_message(ctx, call, extents), call.span)
    atomic = int(kwargs.get("atomic") or 0) == 1
    if len(args) <= 3 and not tile.ndim == len(offsets) == out.ndim and not _fits_leading_ones(offsets, extents, out):
        return _store_flat(ctx, call, tile, offsets, extents, out, atomic)
    if tile.ndim == 2 < len(extents):
        # A flattened tile written back to its N-D partition: its rows are the partition's leading blocks,
        # and only its valid rows and columns are written.
        extents = _valid_partition(ctx, call, extents, valid_of(ctx, call, 0))
        tile = tile[:int(np.prod(extents[:-1])), :extents[-1]].reshape(extents)
    layout = mx_layout_of(call.args[2].type)
    if layout is not None:  # an MX scale tensor: written through its block order (common/mx_layout.py)
        write_logical(out, layout, lambda values: write_window(values, offsets, tile, extents, "tile.store",
                                                               accumulate=atomic))
    else:
        write_window(out, offsets, tile, extents, "tile.store", accumulate=atomic)
    if ctx.race is not None:
        note_written(ctx, call, 2, out, offsets, extents, atomic)
    return out


def _valid_partition(ctx: Any, call: Any, partition: tuple, valid: tuple) -> tuple:
    """The part of an N-D store partition a flattened tile's valid `[rows, cols]` covers: its rows are a
    row-major prefix of the partition's leading dims, which must be a rectangle (`[1, v, 64]` of
    `[1, 16, 64]`; docs/passes/flatten_tile_nd_to_2d.md)."""
    rows, cols = min(valid[0], int(np.prod(partition[:-1]))), min(valid[1], partition[-1])
    lead = partition[:-1]
    for j in range(len(lead)):
        inner = int(np.prod(lead[j + 1:]))
        if rows % inner == 0 and rows // inner <= lead[j]:
            return (1,) * j + (rows // inner,) + tuple(lead[j + 1:]) + (cols,)
    where = call.span.to_string() if hasattr(call.span, "to_string") else str(call.span)
    raise MachineError(f"tile.store at {where} ({ctx.where()}): the {rows} valid rows of the tile are not a "
                       f"block of its {list(partition)} partition (a row-major prefix of the leading dims must be "
                       f"a rectangle)", call.span)


def _fits_leading_ones(offsets: tuple, extents: tuple, out: np.ndarray) -> bool:
    """A lower-rank tile that fits the target's window padded with leading unit dims (a row of a matrix)."""
    lead = out.ndim - len(extents)
    full = (1,) * lead + tuple(extents)
    return lead >= 0 and len(offsets) == out.ndim and all(
        0 <= o and o + e <= d for o, e, d in zip(offsets, full, out.shape))


def _store_flat(ctx: Any, call: Any, tile: np.ndarray, offsets: tuple, extents: tuple, out: np.ndarray,
                atomic: bool) -> np.ndarray:
    """Ranks that differ (docs/dsl.md, tiles): the tile's valid region, row-major, written to
    consecutive row-major elements of the target from the element at `offsets`."""
    where = call.span.to_string() if hasattr(call.span, "to_string") else str(call.span)
    if len(offsets) != out.ndim:
        raise MachineError(f"tile.store at {where} ({ctx.where()}): {len(offsets)} offset(s) for a {out.ndim}-D "
                           f"target; a store whose tile rank differs from the target's copies row-major from "
                           f"the element the offsets name, so give one offset per target dimension", call.span)
    if any(not 0 <= o < d for o, d in zip(offsets, out.shape)):
        raise MachineError(f"tile.store at {where} ({ctx.where()}): offsets {list(offsets)} are outside the "
                           f"target {list(out.shape)}", call.span)
    values = tile[tuple(slice(0, e) for e in extents)].reshape(-1)
    start = int(np.ravel_multi_index(offsets, out.shape))
    if start + values.size > out.size:
        raise MachineError(f"tile.store at {where} ({ctx.where()}): the {values.size} valid elements of a "
                           f"{list(tile.shape)} tile copied row-major from {list(offsets)} run past the end of "
                           f"the {list(out.shape)} target ({out.size - start} elements left); store a smaller "
                           f"tile or reshape it to the target's rank", call.span)
    span = slice(start, start + values.size)
    if atomic:
        out.flat[span] = (wide(out.flat[span]) + wide(values)).astype(out.dtype)
    else:
        out.flat[span] = values.astype(out.dtype, copy=False)
    if ctx.race is not None:
        flat = out.reshape(-1) if out.flags.c_contiguous else None  # a view: the exact elements written
        note(ctx, call, 2, WRITE, flat[span] if flat is not None else out, atomic)
    return out


def _empty_store_message(ctx: Any, call: Any, extents: tuple) -> str:
    axis = extents.index(0)
    what = ("valid row count", "valid column count")[axis] if len(extents) == 2 else f"extent on axis {axis}"
    source = "its `shapes` operand" if len(call.args) > 3 else "the stored tile's valid shape"
    span = call.span.to_string() if hasattr(call.span, "to_string") else str(call.span)
    return (f"tile.store at {span} ({ctx.where()}) stores an empty window: {source} is "
            f"{list(extents)}, a {what} of 0; the hardware store asserts a positive valid row count (TSTORE); "
            f"guard the store with `if extent > 0` (an empty lane's store must not run)")


def note_written(ctx: Any, call: Any, index: int, target: np.ndarray, offsets: tuple, extents: Any,
                 atomic: bool = False) -> None:
    """Report the window write_window wrote (leading dims of size 1 where the value has fewer dims)."""
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


@semantics("tile.move")
@specialized_by(_specialize_move)
def move(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    """The same values in another memory space (layouts are not modelled).

    Tiles are values that nothing mutates, so the operand itself is the result (no copy); except a tile of
    an aliasing space (Acc), whose buffer a later matmul_acc into a slice of it may write: a copy."""
    dt = result_np_dtype(call)
    if aliases(call):
        return args[0].astype(dt, copy=True)
    return args[0] if args[0].dtype == dt else args[0].astype(dt)


@semantics("tile.extract")
@notes_own_gm_accesses
def extract(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    """tile.extract(src, row, col, shape): the [rows, cols] window at (row, col)."""
    shape = as_ints(args[3]) if len(args) > 3 else ctx.shape(call.type)
    offsets = (int(args[1]), int(args[2]))
    if ctx.race is not None:
        note(ctx, call, 0, READ, window_view(args[0], offsets, shape))
    return read_window(args[0], offsets, shape, shape, "tile.extract").astype(result_np_dtype(call))


@semantics("tile.read", "tensor.read")
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


@semantics("tensor.write")
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


@semantics("tile.write")
def write_tile(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    """tile.write(t, indices, value): a copy with one element replaced."""
    out = np.array(args[0], copy=True)
    out[as_ints(args[1])] = args[2]
    return out


@semantics("tensor.dim")
@notes_own_gm_accesses
def dim(ctx: Any, call: Any, args: list, kwargs: dict) -> Any:
    """tensor.dim(t, axis)."""
    return np.int64(np.shape(args[0])[int(args[1])])

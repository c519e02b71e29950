"""The numpy semantics of the gm_gather family's ops (../families/gm_gather.py), imported when the reference
machine first runs an op, never by a process that only compiles (pypto_core/ops/semantics_module.py)."""

from __future__ import annotations

from typing import Any

import numpy as np

from pypto_core.interp.errors import MachineError
from pypto_core.interp.gm_race import READ, WRITE, note, notes_own_gm_accesses, window_view
from pypto_core.ir.enums import MemorySpace
from pypto_core.ir.types import TensorType
from pypto_core.ops.semantics_module import Semantics
from pypto_plugins.ops_tile.common.semantics import (
    as_ints,
    note_elements,
    poison_outside,
    read_window,
    result_np_dtype,
    safe_indices,
    valid_mask,
    write_window,
)

semantics = Semantics()


@semantics("tile.gather_row", "tensor.gather_row")
@notes_own_gm_accesses
def copy_window_into_dst(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    """A copy of dst (acc) with the valid_shape window (default `shapes`; at most `shapes`) of the tensor src
    at src_offset, transposed if asked, written at dst_offset; the rest of dst keeps its data."""
    op = call.op.name
    dst, src = args[0], args[1]
    dst_off, src_off, shape = as_ints(args[2]), as_ints(args[3]), as_ints(args[4])
    extents = tuple(max(0, min(v, s)) for v, s in zip(as_ints(args[5]), shape)) if len(args) > 5 else shape
    part = read_window(src, src_off, extents, extents, op)
    if ctx.race is not None:
        note(ctx, call, 1, READ, window_view(src, src_off, extents))
    if bool(kwargs.get("transpose", False)):
        part = part.T
    out = np.array(dst, copy=True)
    try:
        write_window(out, dst_off, part, part.shape, op)
    except MachineError as exc:
        raise MachineError(f"{exc.message}: keep dst_offset + valid_shape within dst (a smaller valid_shape or "
                           f"dst_offset)", call.span) from None
    return out


def _oob(index: np.ndarray, size: int, mode: int, op: str) -> tuple[np.ndarray, np.ndarray | None]:
    """(in-range indices, mask of the zeroed ones or None) under gather_oob `mode`. The INT32 index is read as
    uint32 (-1 is 2**32 - 1): clamp min(u, size - 1), wrap u mod size, zero where u >= size."""
    idx = index.astype(np.int64) & 0xFFFFFFFF
    bad = idx >= size
    if not bad.any():
        return idx, None
    if mode == 1:
        return np.minimum(idx, size - 1), None
    if mode == 2:
        return np.mod(idx, size), None
    if mode == 3:
        return np.where(bad, 0, idx), bad
    first = tuple(int(i) for i in np.argwhere(bad)[0])
    raise MachineError(f"{op}: index {int(index.reshape(bad.shape)[first])} at {list(first)} is outside a table "
                       f"of {size} (gather_oob='undefined')")


@semantics("tile.mgather")
@notes_own_gm_accesses
def gather_from_table(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    mem, idx = args[0], np.asarray(args[1])
    coalesce, oob = int(kwargs.get("coalesce", 0)), int(kwargs.get("gather_oob", 0))
    mask = valid_mask(ctx, call, 1, idx.shape)  # an index tile is read only where it is valid
    idx = safe_indices(idx, mask)
    if coalesce == 0:  # row mode: whole rows of the table viewed [rows, last dim]
        table = mem.reshape(-1, mem.shape[-1])
        rows, zero = _oob(idx.reshape(-1), table.shape[0], oob, "tile.mgather")
        out = table[rows].copy()
        if zero is not None:
            out[zero] = 0
        if mask is not None:
            out = poison_outside(out, np.repeat(mask.reshape(-1, 1), out.shape[1], axis=1))
        if ctx.race is not None:
            for r in np.unique(rows if mask is None else rows[mask.reshape(-1)]):
                pos = np.unravel_index(int(r) * mem.shape[-1], mem.shape)
                note(ctx, call, 0, READ, mem[tuple(slice(p, p + 1) for p in pos[:-1])])
    else:
        flat, zero = _oob(idx, mem.size, oob, "tile.mgather")
        out = mem[np.unravel_index(flat, mem.shape)]
        if zero is not None:
            out[zero] = 0
        out = poison_outside(out, mask)
        if ctx.race is not None:
            note_elements(ctx, call, 0, mem, flat if mask is None else flat[mask], READ)
        if kwargs.get("target_memory") is MemorySpace.Mat and len(args) > 2 and isinstance(
                call.args[2].type, TensorType):
            scratch = args[2]  # staged through the GM scratch (written in this mode)
            scratch[np.unravel_index(np.arange(out.size), scratch.shape)] = out.reshape(-1)
            if ctx.race is not None:
                note(ctx, call, 2, WRITE, scratch)
    return np.ascontiguousarray(out).astype(result_np_dtype(call), copy=False)


@semantics("tensor.paged_gather")
@notes_own_gm_accesses
def gather_pages(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    src = args[0]
    indices, table = np.asarray(args[1]).reshape(-1), np.asarray(args[2]).reshape(-1)
    bs, size, off = int(kwargs["block_size"]), int(kwargs["size"]), int(kwargs.get("col_off", 0))
    rows = int(kwargs["max_indices"])
    out = np.zeros((rows, size), dtype=src.dtype)
    for k in range(min(rows, indices.size)):
        logical = int(indices[k])
        page = logical // bs
        if not 0 <= page < table.size:
            raise MachineError(f"tensor.paged_gather: index {logical} (page {page}) is outside the block table "
                               f"of {table.size} pages", call.span)
        phys = int(table[page]) * bs + logical % bs
        if not 0 <= phys < src.shape[0]:
            raise MachineError(f"tensor.paged_gather: physical row {phys} is outside the pool of {src.shape[0]} "
                               f"rows", call.span)
        out[k] = src[phys, off:off + size]
        if ctx.race is not None:
            note(ctx, call, 0, READ, src[phys:phys + 1, off:off + size])
    return (out.T.copy() if kwargs.get("is_trans") else out).astype(result_np_dtype(call), copy=False)

"""numpy semantics of the gather_sort ops (issue 14); conventions in ops/gather_sort*.py.

* mgather / mscatter address the GM tensor directly: every element (element mode) or row (row mode) they
  touch is reported to the GM race check. gather_oob: 0 undefined (an index outside the table is a
  MachineError here), 1 clamp, 2 wrap (modulo), 3 zero. mscatter: an index outside the tensor is a
  MachineError; two elements addressing one place: the later in row-major order wins.
* sort32: per block of 32 along the last axis, a stable descending sort; the result interleaves
  (value, index) with the index stored as the bits of the value dtype (UINT32 bits for FP32, the low 16
  bits for FP16), as TSORT32 writes them.
* merge sorts compare the values (even positions) of (value, index) pairs; a stable descending sort of
  the concatenated sorted lists is their merge (ties: the earlier list first). format2 with
  exhausted=True stops after the pair that empties the first list; the rest of the row is poison.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from pypto_core.interp.dtypes import poisoned
from pypto_core.interp.errors import MachineError
from pypto_core.interp.gm_race import READ, WRITE, note, notes_own_gm_accesses
from pypto_core.ir.enums import MemorySpace
from pypto_core.ir.types import TensorType
from pypto_plugins.ops_tile.ops.gather_sort_rules import MASK_SELECT
from pypto_plugins.ops_tile.semantics.common import as_ints, read_window, result_np_dtype, write_window
from pypto_plugins.ops_tile.semantics.indexing import (
    gather_compare_rows,
    poison_outside,
    safe_indices,
    scatter_update,
    valid_mask,
)

# -- GM gather / scatter ---------------------------------------------------------------------------


def _oob(index: np.ndarray, size: int, mode: int, op: str) -> tuple[np.ndarray, np.ndarray | None]:
    """(in-range indices, mask of the zeroed ones or None) under gather_oob `mode`."""
    idx = index.astype(np.int64)
    bad = (idx < 0) | (idx >= size)
    if not bad.any():
        return idx, None
    if mode == 1:
        return np.clip(idx, 0, size - 1), None
    if mode == 2:
        return np.mod(idx, size), None
    if mode == 3:
        return np.where(bad, 0, idx), bad
    first = tuple(int(i) for i in np.argwhere(bad)[0])
    raise MachineError(f"{op}: index {int(idx[first])} at {list(first)} is outside a table of {size} "
                       f"(gather_oob='undefined')")


def _note_elements(ctx: Any, call: Any, index: int, array: np.ndarray, flat: np.ndarray, kind: str) -> None:
    for f in np.unique(flat.reshape(-1)):
        pos = np.unravel_index(int(f), array.shape)
        note(ctx, call, index, kind, array[tuple(slice(p, p + 1) for p in pos)])


@notes_own_gm_accesses
def mgather(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
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
            _note_elements(ctx, call, 0, mem, flat if mask is None else flat[mask], READ)
        if kwargs.get("target_memory") is MemorySpace.Mat and len(args) > 2 and isinstance(
                call.args[2].type, TensorType):
            scratch = args[2]  # staged through the GM scratch (OPS.md: written in this mode)
            scratch[np.unravel_index(np.arange(out.size), scratch.shape)] = out.reshape(-1)
            if ctx.race is not None:
                note(ctx, call, 2, WRITE, scratch)
    return np.ascontiguousarray(out).astype(result_np_dtype(call), copy=False)


@notes_own_gm_accesses
def mscatter(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    """Only the elements valid in both src and idx are written (an empty lane writes nothing)."""
    src, idx, out = np.asarray(args[0]), np.asarray(args[1]).astype(np.int64), args[2]
    masks = [m for m in (valid_mask(ctx, call, i, idx.shape) for i in (0, 1)) if m is not None]
    keep = np.logical_and.reduce(masks) if masks else np.ones(idx.shape, dtype=bool)
    idx, src = idx[keep], src[keep]
    bad = (idx < 0) | (idx >= out.size)
    if bad.any():
        first = int(np.argwhere(bad)[0][0])
        where = [int(i) for i in np.argwhere(keep)[first]]
        raise MachineError(f"tile.mscatter: index {int(idx[first])} at {where} is outside a tensor of "
                           f"{out.size} elements", call.span)
    out[np.unravel_index(idx, out.shape)] = src.astype(out.dtype, copy=False)
    if ctx.race is not None:
        _note_elements(ctx, call, 2, out, idx, WRITE)
    return out


# -- mask gather / scatter -------------------------------------------------------------------------
def _columns(pattern: int) -> slice:
    stride, pick = MASK_SELECT[int(pattern)]
    return slice(pick, None, stride)


def gather_mask(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    picked = np.ascontiguousarray(np.asarray(args[0])[:, _columns(kwargs["mask_pattern"])])
    return picked.view(result_np_dtype(call))  # output_dtype has the source's bit width: a reinterpretation


def scatter_mask_tile(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    out = np.array(args[0], copy=True)
    out[:, _columns(kwargs["mask_pattern"])] = args[1]
    return out


def scatter_mask_tensor(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    out = np.array(args[1], copy=True)  # tensor.scatter_mask(input, dst): input is the narrow source
    out[:, _columns(kwargs["mask_pattern"])] = args[0]
    return out


# -- sort ------------------------------------------------------------------------------------------
def _index_bits(idx: np.ndarray, dtype: np.dtype) -> np.ndarray:
    if dtype.itemsize == 4:
        return idx.astype(np.uint32).view(dtype)
    return (idx.astype(np.int64) & 0xFFFF).astype(np.uint16).view(dtype)


def _descending(values: np.ndarray) -> np.ndarray:
    """Stable descending order along the last axis (NaN poison sorts last)."""
    key = np.where(np.isnan(values), -np.inf, values.astype(np.float64))
    return np.argsort(-key, axis=-1, kind="stable")


def sort32(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    src, idx = np.asarray(args[0]), np.asarray(args[1])
    cols = src.shape[-1]
    out = np.empty((*src.shape[:-1], 2 * cols), dtype=src.dtype)
    bits = _index_bits(idx, src.dtype)
    for start in range(0, cols, 32):
        block = slice(start, min(start + 32, cols))
        order = _descending(src[..., block])
        vals = np.take_along_axis(src[..., block], order, axis=-1)
        ids = np.take_along_axis(bits[..., block], order, axis=-1)
        out[..., 2 * block.start:2 * block.stop:2] = vals
        out[..., 2 * block.start + 1:2 * block.stop:2] = ids
    return out.astype(result_np_dtype(call), copy=False)


def _merge_rows(lists: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Merged pairs of sorted pair lists (last axis 2 * n each): (pairs [..., 2 * total], the list of each)."""
    pairs = np.concatenate([x.reshape(*x.shape[:-1], -1, 2) for x in lists], axis=-2)
    owner = np.concatenate([np.full(x.shape[-1] // 2, i) for i, x in enumerate(lists)])
    order = _descending(pairs[..., 0])
    merged = np.take_along_axis(pairs, order[..., None], axis=-2)
    return merged.reshape(*merged.shape[:-2], -1), owner[order]


def mrgsort_format1(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    src, block = np.asarray(args[0]), int(args[1])
    if block <= 0 or block % 2:
        raise MachineError(f"{call.op.name}: block_len {block} must be a positive even element count", call.span)
    out = np.array(src, copy=True)
    cols = src.shape[-1]
    for start in range(0, cols, 4 * block):
        stop = min(start + 4 * block, cols)
        runs = [src[..., s:min(s + block, stop)] for s in range(start, stop, block)]
        out[..., start:stop] = _merge_rows(runs)[0]
    return out


def _merge_lists(lists: Sequence[np.ndarray], width: int, exhausted: bool, dtype: np.dtype) -> np.ndarray:
    merged, owner = _merge_rows(lists)
    out = poisoned((*merged.shape[:-1], width), dtype)
    rows = merged.reshape(-1, merged.shape[-1])
    owners = owner.reshape(-1, owner.shape[-1])
    flat_out = out.reshape(-1, width)
    sizes = [x.shape[-1] // 2 for x in lists]
    for r in range(rows.shape[0]):
        n = rows.shape[1] // 2
        if exhausted:
            seen = [0] * len(lists)
            for k, who in enumerate(owners[r]):
                seen[who] += 1
                if seen[who] == sizes[who]:
                    n = k + 1
                    break
        take = min(2 * n, width)
        flat_out[r, :take] = rows[r, :take]
    return out


def mrgsort_format2_tile(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    *srcs, tmp = args
    return _merge_lists([np.asarray(s) for s in srcs], np.shape(tmp)[-1], bool(kwargs.get("exhausted")),
                        result_np_dtype(call))


def mrgsort_format2_tensor(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    width = sum(np.shape(s)[-1] for s in args)
    return _merge_lists([np.asarray(s) for s in args], width, bool(kwargs.get("exhausted")), result_np_dtype(call))


# -- tensor gathers --------------------------------------------------------------------------------
def tensor_gather(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    src, index = np.asarray(args[0]), np.asarray(args[1]).astype(np.int64)
    axis = int(kwargs["dim"]) % src.ndim
    bad = (index < 0) | (index >= src.shape[axis])
    if bad.any():
        first = tuple(int(i) for i in np.argwhere(bad)[0])
        raise MachineError(f"tensor.gather: index {int(index[first])} at {list(first)} is outside dim {axis} "
                           f"of extent {src.shape[axis]}", call.span)
    part = src[tuple(slice(None) if a == axis else slice(0, n) for a, n in enumerate(index.shape))]
    return np.take_along_axis(part, index, axis=axis).astype(result_np_dtype(call), copy=False)


@notes_own_gm_accesses
def tensor_gather_row(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    acc, src = args[0], args[1]
    dst_off, src_off, shape = as_ints(args[2]), as_ints(args[3]), as_ints(args[4])
    extents = tuple(min(v, s) for v, s in zip(as_ints(args[5]), shape)) if len(args) > 5 else shape
    part = read_window(src, src_off, extents, extents, "tensor.gather_row")
    if ctx.race is not None:
        note(ctx, call, 1, READ, src[tuple(slice(o, o + e) for o, e in zip(src_off, extents))])
    if bool(kwargs.get("transpose", False)):
        part = part.T
    out = np.array(acc, copy=True)
    write_window(out, dst_off, part, part.shape, "tensor.gather_row")
    return out


@notes_own_gm_accesses
def paged_gather(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
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


def tensor_scatter(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    out = np.array(args[0], copy=True)
    index, src = np.asarray(args[1]).astype(np.int64), np.asarray(args[2])
    bad = (index < 0) | (index >= out.shape[1])
    if bad.any():
        first = tuple(int(i) for i in np.argwhere(bad)[0])
        raise MachineError(f"tensor.scatter: index {int(index[first])} at {list(first)} is outside the "
                           f"{out.shape[1]} columns", call.span)
    rows = np.broadcast_to(np.arange(index.shape[0])[:, None], index.shape)
    out[rows.reshape(-1), index.reshape(-1)] = src.reshape(-1)
    return out


def tensor_gather_compare(ctx: Any, call: Any, args: list, kwargs: dict) -> tuple[np.ndarray, np.ndarray]:
    src = np.asarray(args[0])
    return gather_compare_rows(call, src, args[1], kwargs, src.shape)


def evaluators() -> dict[str, Callable[..., Any]]:
    return {
        "tile.mgather": mgather, "tile.mscatter": mscatter, "tile.gather_mask": gather_mask,
        "tile.scatter_mask": scatter_mask_tile, "tile.sort32": sort32, "tile.mrgsort_format1": mrgsort_format1,
        "tile.mrgsort_format2": mrgsort_format2_tile,
        "tensor.gather": tensor_gather, "tensor.gather_compare": tensor_gather_compare,
        "tensor.gather_mask": gather_mask, "tensor.gather_row": tensor_gather_row,
        "tensor.paged_gather": paged_gather, "tensor.scatter": tensor_scatter,
        "tensor.scatter_mask": scatter_mask_tensor, "tensor.scatter_update": scatter_update,
        "tensor.sort32": sort32, "tensor.mrgsort_format1": mrgsort_format1,
        "tensor.mrgsort_format2": mrgsort_format2_tensor,
    }

"""Index-addressed ops: tile.gather / gatherb / scatter / scatter_update / gather_compare.

Conventions (pypto's own where PyPTO's documents are silent; see also ops/tile_index.py):
* gather(src, indices, tmp): dst[i] = src.flat[indices[i]] (row-major flat index into src);
* gatherb(src, offset): block k of result row i is the 32 bytes of src at byte offset offset[i, k]
  (TGATHERB), read as output_dtype;
* scatter(dst, src, indices): a copy of dst with dst.flat[indices[i]] = src[i];
* scatter_update(input, index [b, s], src [b*s, d] or [b, s, 1, d]): a copy of input (viewed
  [rows, d]) whose row index.flat[i] is src row i;
* gather_compare(src, kvalue, tmp, cmp_mode=, offset=, out_cols=, count_dtype=): per row, the column
  indices (+ offset) of the valid elements that compare true against kvalue (cmp_mode 0..5 = EQ NE LT
  GT GE LE) packed to the left of a [rows, out_cols] INT32 tile (poison after them), and a [1, rows]
  count (count_dtype) of the packed indices.
An index outside the source is a MachineError, not a silent wrap. Only indices inside the index tile's
valid region are read (an empty lane's replay holds poison there); the results there are poison.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pypto_core.interp.dtypes import np_dtype, poisoned
from pypto_core.interp.errors import MachineError
from pypto_core.ir.types import TileType
from pypto_plugins.ops_tile.semantics.common import Evaluate, result_np_dtype, valid_of
from pypto_plugins.ops_tile.semantics.elementwise import CMP_FNS


def _checked(flat_index: np.ndarray, size: int, op: str) -> np.ndarray:
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


def gather(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    src, idx = args[0], np.asarray(args[1])
    mask = valid_mask(ctx, call, 1, idx.shape)
    picked = src.reshape(-1)[_checked(safe_indices(idx, mask), src.size, "tile.gather")]
    return poison_outside(picked.astype(result_np_dtype(call)), mask)


def gatherb(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    """Each offset fills one 32-byte block of the result with the 32 bytes of src at that byte offset."""
    src, offsets = np.ascontiguousarray(args[0]), np.asarray(args[1]).astype(np.int64)
    mask = valid_mask(ctx, call, 1, offsets.shape)
    offsets = safe_indices(offsets, mask)
    data = src.reshape(-1).view(np.uint8)
    bad = (offsets < 0) | (offsets + 32 > data.size)
    if bad.any():
        first = tuple(int(i) for i in np.argwhere(bad)[0])
        raise MachineError(f"tile.gatherb: byte offset {int(offsets[first])} at {list(first)} does not leave a "
                           f"32-byte block inside a source of {data.size} bytes")
    blocks = data[offsets[..., None] + np.arange(32)]  # [rows, cols, 32] bytes
    rows = np.ascontiguousarray(blocks.reshape(offsets.shape[0], -1)).view(result_np_dtype(call))
    if mask is None:
        return rows
    per_block = rows.shape[1] // offsets.shape[1]
    return poison_outside(rows, np.repeat(mask, per_block, axis=1))


def scatter(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    """Only the elements where both src and indexes are valid are written."""
    out = np.array(args[0], copy=True)
    src, idx = np.asarray(args[1]), np.asarray(args[2])
    mask = _both_valid(ctx, call, (1, 2), idx.shape)
    flat_idx = _checked(idx[mask] if mask is not None else idx.reshape(-1), out.size, "tile.scatter")
    out.reshape(-1)[flat_idx] = src[mask] if mask is not None else src.reshape(-1)
    return out


def _both_valid(ctx: Any, call: Any, indices: tuple[int, ...], shape: tuple[int, ...]) -> np.ndarray | None:
    masks = [m for m in (valid_mask(ctx, call, i, shape) for i in indices) if m is not None]
    if not masks:
        return None
    return np.logical_and.reduce(masks)


def scatter_update(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    """input viewed [rows, d] (a 4-D input: rows = its leading dims) with row index.flat[r] = src row r
    (only the valid indices of a tile index are used)."""
    out = np.array(args[0], copy=True)
    table = out.reshape(-1, out.shape[-1])
    index = np.asarray(args[1])
    mask = valid_mask(ctx, call, 1, index.shape)
    keep = np.ones(index.size, dtype=bool) if mask is None else mask.reshape(-1)
    rows = _checked(index.reshape(-1)[keep], table.shape[0], call.op.name)
    src = np.asarray(args[2]).reshape(-1, out.shape[-1])
    table[rows, :] = src[: index.size][keep]
    return out


def gather_compare_rows(call: Any, src: np.ndarray, k: Any, kwargs: dict,
                        valid: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Per valid row, the column indices (+ offset) of the valid elements comparing true, packed left
    (poison after them, at most out_cols), and the [1, rows] counts (of the packed indices)."""
    fn = CMP_FNS[int(kwargs["cmp_mode"])]
    out_cols, offset = int(kwargs["out_cols"]), int(kwargs.get("offset") or 0)
    cnt_type = call.type.types[1]
    vr, vc = valid
    dst = poisoned((src.shape[0], out_cols), np.dtype(np.int32))
    counts = np.zeros((1, src.shape[0]), dtype=np_dtype(cnt_type.dtype))
    for r in range(vr):
        picked = (np.flatnonzero(fn(src[r, :vc], k)) + offset)[:out_cols]
        dst[r, : len(picked)] = picked
        counts[0, r] = len(picked)
    return dst, counts


def gather_compare(ctx: Any, call: Any, args: list, kwargs: dict) -> tuple[np.ndarray, np.ndarray]:
    return gather_compare_rows(call, args[0], args[1], kwargs, valid_of(ctx, call, 0))


def evaluators() -> dict[str, Evaluate]:
    return {"tile.gather": gather, "tile.gatherb": gatherb, "tile.scatter": scatter,
            "tile.scatter_update": scatter_update, "tile.gather_compare": gather_compare}

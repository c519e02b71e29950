"""The numpy semantics of the gather family's ops (../families/gather.py), imported when the reference machine
first runs an op, never by a process that only compiles (pypto_core/ops/semantics_module.py)."""

from __future__ import annotations

from typing import Any

import numpy as np

from pypto_core.interp.dtypes import np_dtype, poisoned
from pypto_core.interp.errors import MachineError
from pypto_core.ops.semantics_module import Semantics
from pypto_plugins.ops_tile.common import indexing as R
from pypto_plugins.ops_tile.common.semantics import (
    CMP_FNS,
    checked_indices,
    poison_outside,
    result_np_dtype,
    safe_indices,
    valid_mask,
    valid_of,
)

semantics = Semantics()


@semantics("tile.gather")
def gather_elements(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    src, idx = args[0], np.asarray(args[1])
    mask = valid_mask(ctx, call, 1, idx.shape)
    picked = src.reshape(-1)[checked_indices(safe_indices(idx, mask), src.size, "tile.gather")]
    return poison_outside(picked.astype(result_np_dtype(call)), mask)


@semantics("tile.gatherb")
def gather_blocks(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
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


def compare_rows(call: Any, src: np.ndarray, k: Any, kwargs: dict,
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


@semantics("tile.gather_compare")
def compare_tile_rows(ctx: Any, call: Any, args: list, kwargs: dict) -> tuple[np.ndarray, np.ndarray]:
    return compare_rows(call, args[0], args[1], kwargs, valid_of(ctx, call, 0))


@semantics("tensor.gather_compare")
def compare_tensor_rows(ctx: Any, call: Any, args: list, kwargs: dict) -> tuple[np.ndarray, np.ndarray]:
    src = np.asarray(args[0])
    return compare_rows(call, src, args[1], kwargs, src.shape)


@semantics("tile.gather_mask", "tensor.gather_mask")
def gather_columns(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    picked = np.ascontiguousarray(np.asarray(args[0])[:, R.mask_columns(kwargs["mask_pattern"])])
    return picked.view(result_np_dtype(call))  # output_dtype has the source's bit width: a reinterpretation


@semantics("tensor.gather")
def gather_along_dim(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    src, index = np.asarray(args[0]), np.asarray(args[1]).astype(np.int64)
    axis = int(kwargs["dim"]) % src.ndim
    bad = (index < 0) | (index >= src.shape[axis])
    if bad.any():
        first = tuple(int(i) for i in np.argwhere(bad)[0])
        raise MachineError(f"tensor.gather: index {int(index[first])} at {list(first)} is outside dim {axis} "
                           f"of extent {src.shape[axis]}", call.span)
    part = src[tuple(slice(None) if a == axis else slice(0, n) for a, n in enumerate(index.shape))]
    return np.take_along_axis(part, index, axis=axis).astype(result_np_dtype(call), copy=False)

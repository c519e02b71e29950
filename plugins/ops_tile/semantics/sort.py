"""The numpy semantics of the sort family's ops (../families/sort.py), imported when the reference machine
first runs an op, never by a process that only compiles (pypto_core/ops/semantics_module.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from pypto_core.interp.dtypes import poisoned
from pypto_core.interp.errors import MachineError
from pypto_core.ops.semantics_module import Semantics
from pypto_plugins.ops_tile.common.semantics import result_np_dtype

semantics = Semantics()


def _index_bits(idx: np.ndarray, dtype: np.dtype) -> np.ndarray:
    if dtype.itemsize == 4:
        return idx.astype(np.uint32).view(dtype)
    return (idx.astype(np.int64) & 0xFFFF).astype(np.uint16).view(dtype)


def _descending(values: np.ndarray) -> np.ndarray:
    """Stable descending order along the last axis (NaN poison sorts last)."""
    key = np.where(np.isnan(values), -np.inf, values.astype(np.float64))
    return np.argsort(-key, axis=-1, kind="stable")


@semantics("tile.sort32", "tensor.sort32")
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


@semantics("tile.mrgsort_format1", "tensor.mrgsort_format1")
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


@semantics("tile.mrgsort_format2")
def merge_into_tmp(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    *srcs, tmp = args
    return _merge_lists([np.asarray(s) for s in srcs], np.shape(tmp)[-1], bool(kwargs.get("exhausted")),
                        result_np_dtype(call))


@semantics("tensor.mrgsort_format2")
def merge_tensors(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    width = sum(np.shape(s)[-1] for s in args)
    return _merge_lists([np.asarray(s) for s in args], width, bool(kwargs.get("exhausted")), result_np_dtype(call))

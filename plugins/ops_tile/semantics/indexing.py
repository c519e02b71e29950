"""Index-addressed ops: tile.gather / gatherb / scatter / scatter_update / gather_compare.

Conventions (where API.md is silent; see also ops/tile_index.py):
* gather(src, indices, tmp): dst[i] = src.flat[indices[i]] (row-major flat index into src);
* gatherb(src, offsets): the same with byte offsets (offsets // itemsize), cast to output_dtype;
* scatter(dst, src, indices): a copy of dst with dst.flat[indices[i]] = src[i];
* scatter_update(input, index [b, s] or [n], src [b*s, d]): a copy of input whose row index.flat[i]
  is src row i;
* gather_compare(src, k, tmp, cmp_mode=, out_cols=): per row, the elements of the valid region that
  compare true against the scalar k (cmp_mode 0..5 = EQ NE LT GT GE LE) packed to the left of a
  [rows, out_cols] tile (poison after them), and a [1, rows] INT32 count of the packed elements.
An index outside the source is a MachineError, not a silent wrap.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pypto_core.interp.dtypes import poisoned
from pypto_core.interp.errors import MachineError
from pypto_plugins.ops_tile.semantics.common import Evaluate, result_np_dtype, valid_of
from pypto_plugins.ops_tile.semantics.elementwise import CMP_FNS


def _checked(flat_index: np.ndarray, size: int, op: str) -> np.ndarray:
    idx = flat_index.astype(np.int64)
    bad = (idx < 0) | (idx >= size)
    if bad.any():
        first = tuple(int(i) for i in np.argwhere(bad)[0])
        raise MachineError(f"{op}: index {int(idx[first])} at {list(first)} is outside a source of {size} elements")
    return idx

def gather(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    src, idx = args[0], args[1]
    return src.reshape(-1)[_checked(idx, src.size, "tile.gather")].astype(result_np_dtype(call))

def gatherb(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    src, offsets = args[0], args[1]
    idx = _checked(offsets.astype(np.int64) // src.dtype.itemsize, src.size, "tile.gatherb")
    return src.reshape(-1)[idx].astype(result_np_dtype(call))

def scatter(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    out = np.array(args[0], copy=True)
    idx = _checked(args[2], out.size, "tile.scatter")
    flat = out.reshape(-1)
    flat[idx.reshape(-1)] = np.asarray(args[1]).reshape(-1)
    return out

def scatter_update(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    out = np.array(args[0], copy=True)
    rows = _checked(np.asarray(args[1]).reshape(-1), out.shape[0], "tile.scatter_update")
    out[rows, :] = args[2][: len(rows), :]
    return out

def gather_compare(ctx: Any, call: Any, args: list, kwargs: dict) -> tuple[np.ndarray, np.ndarray]:
    src, k = args[0], args[1]
    fn = CMP_FNS[int(kwargs["cmp_mode"])]
    out_cols = int(kwargs["out_cols"])
    vr, vc = valid_of(ctx, call, 0)
    dst_type, cnt_type = call.type.types
    dst = poisoned(ctx.shape(dst_type), src.dtype)
    counts = np.zeros(ctx.shape(cnt_type), dtype=np.int32)
    for r in range(vr):
        row = src[r, :vc]
        picked = row[fn(row, k)][:out_cols]
        dst[r, : len(picked)] = picked
        counts[0, r] = len(picked)
    return dst, counts

def evaluators() -> dict[str, Evaluate]:
    return {"tile.gather": gather, "tile.gatherb": gatherb, "tile.scatter": scatter,
            "tile.scatter_update": scatter_update, "tile.gather_compare": gather_compare}

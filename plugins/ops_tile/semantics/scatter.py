"""The numpy semantics of the scatter family's ops (../families/scatter.py), imported when the reference
machine first runs an op, never by a process that only compiles (pypto_core/ops/semantics_module.py)."""

from __future__ import annotations

from typing import Any

import numpy as np

from pypto_core.interp.errors import MachineError
from pypto_core.interp.gm_race import WRITE, notes_own_gm_accesses
from pypto_core.ops.semantics_module import Semantics
from pypto_plugins.ops_tile.common import indexing as R
from pypto_plugins.ops_tile.common.semantics import checked_indices, note_elements, valid_mask

semantics = Semantics()


def _both_valid(ctx: Any, call: Any, indices: tuple[int, ...], shape: tuple[int, ...]) -> np.ndarray | None:
    masks = [m for m in (valid_mask(ctx, call, i, shape) for i in indices) if m is not None]
    if not masks:
        return None
    return np.logical_and.reduce(masks)


@semantics("tile.scatter")
def scatter_elements(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    """Only the elements where both src and indexes are valid are written."""
    out = np.array(args[0], copy=True)
    src, idx = np.asarray(args[1]), np.asarray(args[2])
    mask = _both_valid(ctx, call, (1, 2), idx.shape)
    flat_idx = checked_indices(idx[mask] if mask is not None else idx.reshape(-1), out.size, "tile.scatter")
    out.reshape(-1)[flat_idx] = src[mask] if mask is not None else src.reshape(-1)
    return out


@semantics("tile.scatter_update", "tensor.scatter_update")
def update_rows(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    """input viewed [rows, d] (a 4-D input: rows = its leading dims) with row index.flat[r] = src row r
    (only the valid indices of a tile index are used)."""
    out = np.array(args[0], copy=True)
    table = out.reshape(-1, out.shape[-1])
    index = np.asarray(args[1])
    mask = valid_mask(ctx, call, 1, index.shape)
    keep = np.ones(index.size, dtype=bool) if mask is None else mask.reshape(-1)
    rows = checked_indices(index.reshape(-1)[keep], table.shape[0], call.op.name)
    src = np.asarray(args[2]).reshape(-1, out.shape[-1])
    table[rows, :] = src[: index.size][keep]
    return out


@semantics("tile.scatter_mask")
def scatter_columns(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    out = np.array(args[0], copy=True)
    out[:, R.mask_columns(kwargs["mask_pattern"])] = args[1]
    return out


@semantics("tensor.scatter_mask")
def scatter_columns_of_input(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    out = np.array(args[1], copy=True)  # tensor.scatter_mask(input, dst): input is the narrow source
    out[:, R.mask_columns(kwargs["mask_pattern"])] = args[0]
    return out


@semantics("tile.mscatter")
@notes_own_gm_accesses
def scatter_into_tensor(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
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
        note_elements(ctx, call, 2, out, idx, WRITE)
    return out


@semantics("tensor.scatter")
def scatter_along_last_axis(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
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

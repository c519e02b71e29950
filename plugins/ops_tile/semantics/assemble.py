"""The numpy semantics of the assemble family's ops (../families/assemble.py), imported when the reference
machine first runs an op, never by a process that only compiles (pypto_core/ops/semantics_module.py)."""

from __future__ import annotations

from typing import Any

import numpy as np

from pypto_core.interp.gm_race import READ, WRITE, note, notes_own_gm_accesses, window_view
from pypto_core.ops.semantics_module import Semantics
from pypto_plugins.ops_tile.common.semantics import as_ints, result_np_dtype, valid_of, write_window

semantics = Semantics()


@semantics("tile.assemble")
def assemble_tile(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    """A copy of target with source's valid region written in."""
    out = np.array(args[0], copy=True)
    write_window(out, as_ints(args[2]), args[1], valid_of(ctx, call, 1), "tile.assemble",
                 accumulate=int(kwargs.get("atomic") or 0) == 1)
    return out


@semantics("tensor.assemble")
@notes_own_gm_accesses
def assemble_tensor(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    """Writes source into the caller's target in place."""
    target, source = args[0], args[1]
    extents = valid_of(ctx, call, 1) if hasattr(call.args[1].type, "shape") else np.shape(source)
    atomic = int(kwargs.get("atomic") or 0) == 1
    offsets = as_ints(args[2])
    write_window(target, offsets, np.asarray(source), extents, "tensor.assemble", accumulate=atomic)
    if ctx.race is not None:
        lead = target.ndim - len(extents)
        note(ctx, call, 0, WRITE, window_view(target, offsets, (1,) * lead + tuple(extents)), atomic)
        if isinstance(source, np.ndarray):
            note(ctx, call, 1, READ, source)  # a tensor source is read whole (note skips tiles)
    return target


@semantics("tensor.expand_clone")
@notes_own_gm_accesses
def expand_clone(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    """The input broadcast to the target's shape, written into the caller's target in place; returns it
    (converted when the promoted dtype is wider)."""
    target = args[1]
    target[...] = np.broadcast_to(args[0], target.shape).astype(target.dtype, copy=False)
    if ctx.race is not None:
        if isinstance(args[0], np.ndarray):
            note(ctx, call, 0, READ, args[0])
        note(ctx, call, 1, WRITE, target)
    dt = result_np_dtype(call)
    return target if target.dtype == dt else target.astype(dt)


@semantics("tile.concat", "tensor.concat")
def concat(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    return np.concatenate([args[0], args[1]], axis=1).astype(result_np_dtype(call), copy=False)

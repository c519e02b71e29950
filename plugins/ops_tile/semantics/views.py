"""The numpy semantics of the views family's ops (../families/views.py), imported when the reference machine
first runs an op, never by a process that only compiles (pypto_core/ops/semantics_module.py)."""

from __future__ import annotations

from typing import Any

import numpy as np

from pypto_core.interp.errors import MachineError
from pypto_core.interp.gm_race import notes_own_gm_accesses
from pypto_core.ir.enums import TensorLayout
from pypto_core.ops.semantics_module import Semantics
from pypto_plugins.ops_tile.common.semantics import (
    alias_view,
    aliases,
    as_ints,
    read_window,
    result_np_dtype,
    window,
)
from pypto_plugins.ops_tile.families.views import _layout

semantics = Semantics()


@semantics("tile.slice")
def slice_tile(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    """tile.slice(tile, shape, offset[, valid_shape[, drop_dims]]): the window, at the result's shape."""
    src, shape, offset = args[0], as_ints(args[1]), as_ints(args[2])
    if aliases(call) and all(o >= 0 and o + e <= d for o, e, d in zip(offset, shape, src.shape)):
        view = alias_view(ctx, call, src, window(offset, shape))
        if view is not None:
            return view
    part = read_window(src, offset, shape, shape, "tile.slice")
    return part.reshape(ctx.shape(call.type))  # drop_dims / the >= 2-D clamp only move unit dims


@semantics("tensor.slice")
@notes_own_gm_accesses
def slice_tensor(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    """tensor.slice(t, shape, offset[, valid_shape[, drop_dims]]): a view of the caller's tensor."""
    src, shape, offset = args[0], as_ints(args[1]), as_ints(args[2])
    target = ctx.shape(call.type)
    if all(o >= 0 and o + e <= d for o, e, d in zip(offset, shape, src.shape)):
        return src[window(offset, shape)].reshape(target)
    if not kwargs.get("clamp"):
        raise MachineError(f"tensor.slice: window {list(shape)} at {list(offset)} is outside the source "
                           f"{list(src.shape)}", call.span)
    return read_window(src, offset, shape, shape, "tensor.slice").reshape(target)


@semantics("tile.reshape", "tensor.reshape")
@notes_own_gm_accesses
def reshape(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    """tile.reshape copies; tensor.reshape is a view when numpy can make one."""
    shape = as_ints(args[1])
    if call.op.name.startswith("tensor."):
        return np.reshape(args[0], shape)
    if aliases(call):
        view = alias_view(ctx, call, args[0], (Ellipsis,))
        if view is not None:
            return view
    return np.array(np.reshape(args[0], shape), copy=True)


@semantics("tile.reinterpret_view", "tensor.reinterpret_view")
@notes_own_gm_accesses
def reinterpret_view(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    """The same bytes read as another dtype (and shape)."""
    src = args[0]
    dt = result_np_dtype(call)
    if call.op.name.startswith("tensor.") and src.flags.c_contiguous:
        return src.view(dt).reshape(ctx.shape(call.type))
    return np.ascontiguousarray(src).view(dt).reshape(ctx.shape(call.type)).copy()


@semantics("tile.set_validshape")
def set_tile_validshape(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    """The same values; the machine poisons what the new valid region leaves out."""
    if aliases(call):
        view = alias_view(ctx, call, args[0], (Ellipsis,))
        if view is not None:
            return view
    return np.array(args[0], copy=True)


@semantics("tensor.set_validshape")
def set_tensor_validshape(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    """The same tensor (the result reuses it); only its type's valid region changes."""
    return args[0]


@semantics("tensor.view")
def view(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    """The source's memory order (ND row-major; DN the last two axes column-major) re-read with the result's
    shape and layout. A numpy view of the caller's array when numpy can make one."""
    src, dst = call.args[0].type, call.type
    shape = ctx.shape(dst)
    if len(call.args) < 2 or not args[1]:
        return np.swapaxes(args[0], -1, -2) if _layout(src) is not _layout(dst) else args[0]
    memory = np.swapaxes(args[0], -1, -2) if _layout(src) is TensorLayout.DN else args[0]
    if _layout(dst) is TensorLayout.DN:
        return np.swapaxes(np.reshape(memory, (*shape[:-2], shape[-1], shape[-2])), -1, -2)
    return np.reshape(memory, shape)

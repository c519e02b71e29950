"""Re-shaping and re-viewing: tile.slice / reshape / reinterpret_view / transpose / transpose_view /
set_validshape, and the tensor views (tensor.slice / reshape / transpose / reinterpret_view).

Tile results are fresh arrays (tiles are values), except views of a tile in an aliasing space (Acc, see
`ALIASING_SPACES`): there a slice / reshape / set_validshape is a window of the parent's buffer, as on the
device, so that `matmul_acc` into an Acc slice writes the parent (issue 14 item 4; EvalContext.bind_alias).
Tensor views are numpy views of the caller's
array, so that a store through a slice writes the original tensor; a tensor window that hangs off
the end (`clamp=True`) cannot be a view and is read-only: a poisoned copy.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pypto_core.interp.errors import MachineError
from pypto_core.interp.gm_race import notes_own_gm_accesses
from pypto_core.ir.enums import MemorySpace
from pypto_plugins.ops_tile.semantics.common import Evaluate, as_ints, read_window, result_np_dtype, window

# Spaces whose views alias their parent on the reference machine. Acc: the cube writes an accumulator in
# place (matmul_acc into a window of a bigger Acc tile, the corpus' split-N/-M pattern). Vec / Mat views
# stay copies: the compiler's own lowering rebinds Vec windows by value (assemble into a slice of a loaded
# tile must not change the tile), and no corpus program writes through a Vec view.
ALIASING_SPACES = frozenset({MemorySpace.Acc})


def aliases(call: Any) -> bool:
    """Whether this view call's source lives in an aliasing space."""
    return getattr(call.args[0].type, "memory_space", None) in ALIASING_SPACES


def alias_view(ctx: Any, call: Any, src: np.ndarray, index: tuple[slice, ...]) -> np.ndarray | None:
    """The view src[index] at the result's shape, registered as aliasing src's buffer; None when the
    source cannot be written (a read-only array) or numpy cannot make a view."""
    base = ctx.alias_target(src)
    base = src if base is None else base
    if not base.flags.writeable:
        return None
    target = base[index].reshape(ctx.shape(call.type))
    if not np.may_share_memory(target, base):
        return None
    valid = ctx.valid_shape(call.type)
    # A narrower valid region is poisoned by the machine: then the value is a copy that writes through.
    value = target if valid == target.shape else target.copy()
    ctx.bind_alias(value, target)
    return value


def slice_tile(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    """tile.slice(tile, shape, offset[, valid_shape[, drop_dims]]): the window, at the result's shape."""
    src, shape, offset = args[0], as_ints(args[1]), as_ints(args[2])
    if aliases(call) and all(o >= 0 and o + e <= d for o, e, d in zip(offset, shape, src.shape)):
        view = alias_view(ctx, call, src, window(offset, shape))
        if view is not None:
            return view
    part = read_window(src, offset, shape, shape, "tile.slice")
    return part.reshape(ctx.shape(call.type))  # drop_dims / the >= 2-D clamp only move unit dims


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


@notes_own_gm_accesses
def reinterpret_view(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    """The same bytes read as another dtype (and shape)."""
    src = args[0]
    dt = result_np_dtype(call)
    if call.op.name.startswith("tensor.") and src.flags.c_contiguous:
        return src.view(dt).reshape(ctx.shape(call.type))
    return np.ascontiguousarray(src).view(dt).reshape(ctx.shape(call.type)).copy()


@notes_own_gm_accesses
def transpose(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    """tile.transpose(tile, axis1, axis2[, tmp]) / tensor.transpose (a view)."""
    out = np.swapaxes(args[0], int(args[1]), int(args[2]))
    return out if call.op.name.startswith("tensor.") else out.copy()


def transpose_view(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    return np.swapaxes(args[0], -1, -2).copy()


def set_validshape(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    """The same values; the machine poisons what the new valid region leaves out."""
    if aliases(call):
        view = alias_view(ctx, call, args[0], (Ellipsis,))
        if view is not None:
            return view
    return np.array(args[0], copy=True)


def evaluators() -> dict[str, Evaluate]:
    return {
        "tile.slice": slice_tile, "tile.reshape": reshape, "tile.reinterpret_view": reinterpret_view,
        "tile.transpose": transpose, "tile.transpose_view": transpose_view, "tile.set_validshape": set_validshape,
        "tensor.slice": slice_tensor, "tensor.reshape": reshape, "tensor.reinterpret_view": reinterpret_view,
        "tensor.transpose": transpose,
    }

"""The numpy semantics of the cross_core family's ops (../families/cross_core.py), imported when the reference
machine first runs an op, never by a process that only compiles (pypto_core/ops/semantics_module.py)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from pypto_core.interp import fifo, gm_race
from pypto_core.interp.dtypes import poisoned
from pypto_core.interp.errors import MachineError
from pypto_core.ir.types import TensorType, TileType, Type
from pypto_core.ops.build import static_dims
from pypto_core.ops.semantics_module import Semantics
from pypto_plugins.ops_tile.common.semantics import (
    read_window,
    result_np_dtype,
    specialized_by,
    valid_of,
    window,
)

semantics = Semantics()


def _mode_axis(kwargs: dict) -> int | None:
    mode = int(kwargs.get("split") or 0)
    return None if mode == 0 else mode - 1


@semantics("tile.aiv_shard", "tensor.aiv_shard")
@gm_race.notes_own_gm_accesses
def aiv_shard(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    """This lane's part of a full tile (or tensor): box = the result's extent on the split axis."""
    src, axis = args[0], _mode_axis(kwargs)
    if axis is None:
        return src if call.op.name.startswith("tensor.") else np.array(src, copy=True)
    shape = ctx.shape(call.type)
    stride = kwargs.get("lane_stride") or shape[axis]
    offset = [0] * src.ndim
    offset[axis] = ctx.lane * int(stride)
    if call.op.name.startswith("tensor."):
        if offset[axis] + shape[axis] <= src.shape[axis]:
            return src[window(offset, shape)]  # a view: stores through it reach the caller's tensor
        if ctx.race is not None:  # a copy reads GM
            gm_race.note(ctx, call, 0, gm_race.READ, gm_race.window_view(src, offset, shape))
    return read_window(src, offset, shape, shape, call.op.name)


@semantics("tile.aic_gather", "tensor.aic_gather")
def aic_gather(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    """Both lanes' valid parts reassembled: lane l at l * box on the split axis (a lane barrier)."""
    src, axis = args[0], _mode_axis(kwargs)
    if axis is None:
        return np.array(src, copy=True)
    valid = valid_of(ctx, call, 0)
    parts = ctx.exchange(call, call.op.name, (src, valid))
    out = poisoned(ctx.shape(call.type), result_np_dtype(call))
    box = src.shape[axis]
    for lane, (part, part_valid) in enumerate(parts):
        offset = [0] * out.ndim
        offset[axis] = lane * box
        extents = [min(v, o - off) for v, o, off in zip(part_valid, out.shape, offset)]
        if all(e > 0 for e in extents):
            out[window(offset, extents)] = part[tuple(slice(0, e) for e in extents)]
    return out


def _pipe(kwargs: dict) -> int:
    return int(kwargs.get("id") or 0)


def _code(kwargs: dict) -> int:
    return int(kwargs.get("split") or 0)


def _bytes(ctx: Any, t: Type, value: Any) -> int:
    """A tile's physical size: its shape (not its valid region) x its dtype's bits."""
    if isinstance(t, (TileType, TensorType)):
        static = static_dims(t.shape)  # the usual case: computed once per type, not per transfer
        if static is not None:
            return _static_bytes(tuple(static), t.dtype.get_bit())
        elements = 1
        for d in ctx.shape(t):
            elements *= int(d)
        return (elements * t.dtype.get_bit() + 7) // 8
    return int(getattr(value, "nbytes", 0))


@lru_cache(maxsize=1024)
def _static_bytes(shape: tuple[int, ...], bits: int) -> int:
    elements = 1
    for d in shape:
        elements *= d
    return (elements * bits + 7) // 8


def _specialize_push(push: Any) -> Any:
    """Per call site of a push of a statically typed tile: the pipe, the valid extents and the slot bytes the
    type fixes, computed once (a dynamic type takes the general evaluate)."""

    def specialize(code: Any, call: Any, kwargs: dict) -> Any:
        t = call.args[0].type if call.args else None
        static = static_dims(t.shape) if isinstance(t, TileType) else None
        valid = code.static_valid(t) if static is not None else None
        if valid is None:
            return None
        pipe, nbytes = _pipe(kwargs), _static_bytes(tuple(static), t.dtype.get_bit())  # type: ignore[union-attr]

        def push_static(ctx: Any, call: Any, args: list, kwargs: dict) -> None:
            push(ctx, call, args[0], valid, pipe, nbytes)

        return push_static

    return specialize


@semantics("tile.tpush_to_aiv")
@specialized_by(_specialize_push(fifo.push_c2v))
def tpush_to_aiv(ctx: Any, call: Any, args: list, kwargs: dict) -> None:
    fifo.push_c2v(ctx, call, args[0], valid_of(ctx, call, 0), _pipe(kwargs), _bytes(ctx, call.args[0].type, args[0]))


@semantics("tile.tpush_to_aic")
@specialized_by(_specialize_push(fifo.push_v2c))
def tpush_to_aic(ctx: Any, call: Any, args: list, kwargs: dict) -> None:
    fifo.push_v2c(ctx, call, args[0], valid_of(ctx, call, 0), _pipe(kwargs), _bytes(ctx, call.args[0].type, args[0]))


def _popped_type(call: Any) -> TileType:
    if not isinstance(call.type, TileType):
        raise MachineError(f"{call.op.name} has no tile type: annotate the assignment (or give shape= and "
                           f"dtype=) so that the machine knows what it pops", call.span)
    return call.type


def _specialize_pop_on_a_lane(code: Any, call: Any, kwargs: dict) -> Any:
    """Per call site, what the popped tile's type fixes: the pipe, the split code, the slot bytes, the result
    dtype, the shape and the valid extents (a dynamic type takes the general evaluate)."""
    t = call.type
    static = static_dims(t.shape) if isinstance(t, TileType) else None
    valid = code.static_valid(t) if static is not None else None
    if valid is None:
        return None
    shape, pipe, split, op, dt = tuple(static), _pipe(kwargs), _code(kwargs), call.op.name, result_np_dtype(call)
    nbytes = _static_bytes(shape, t.dtype.get_bit())

    def pop_static(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
        slot = fifo.pop_c2v(ctx, call, pipe, nbytes)
        return fifo.take_lane_part(slot.data, split, ctx.lane, shape, valid, op).astype(dt, copy=False)

    return pop_static


@semantics("tile.tpop_from_aic")
@specialized_by(_specialize_pop_on_a_lane)
def pop_on_a_lane(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    t = _popped_type(call)
    slot = fifo.pop_c2v(ctx, call, _pipe(kwargs), _bytes(ctx, t, None))
    part = fifo.take_lane_part(slot.data, _code(kwargs), ctx.lane, ctx.shape(t), ctx.valid_shape(t),
                               call.op.name)
    return part.astype(result_np_dtype(call), copy=False)


@semantics("tile.tpop_from_aiv")
def pop_on_the_cube(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    t = _popped_type(call)
    slots = fifo.pop_v2c(ctx, call, _pipe(kwargs), _bytes(ctx, t, None))
    fifo.check_no_split_lanes_agree(ctx, call, slots, _code(kwargs))
    out = poisoned(ctx.shape(t), result_np_dtype(call))
    for lane, slot in enumerate(slots):
        fifo.place_lane_part(out, slot.data.astype(out.dtype, copy=False), slot.valid, _code(kwargs), lane,
                             call.op.name)
    return out


@semantics("system.tfree_to_aic")
def free_to_aic(ctx: Any, call: Any, args: list, kwargs: dict) -> None:
    fifo.free_c2v(ctx, call, _pipe(kwargs))


@semantics("system.tfree_to_aiv")
def free_to_aiv(ctx: Any, call: Any, args: list, kwargs: dict) -> None:
    fifo.free_v2c(ctx, call, _pipe(kwargs))

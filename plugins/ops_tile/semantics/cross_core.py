"""Lanes and cross-core transfers: tile.get_subblock_idx, the split boundaries aiv_shard /
aic_gather, tpush / tpop / tfree, and the pipe setup and sync ops of `system.*`.

The FIFO protocol and where each lane's rows / columns sit in a slot (the split codes of docs/passes/lower_auto_vector_split.md)
belong to the machine model: pypto_core/interp/fifo.py. aiv_shard gives lane L the window starting
at L * S on the split axis (S = lane_stride, else the lane box); aic_gather puts lane l's valid
part at l * box (docs/passes/lower_auto_vector_split.md, split codes).

The pipe setup ops build the core group's buffers and pipe setups (pypto_core/interp/pipes.py), which
every push / pop is checked against. The sync ops (`syncall`, `sync_set` / `sync_wait`, ...) are no-ops:
the machine runs each core's ops in program order and orders cores only through FIFOs and lane
barriers, so they are no happens-before edges for the GM race check (pypto_core/interp/gm_race.py).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from pypto_core.interp import fifo, gm_race, pipes
from pypto_core.interp.dtypes import poisoned
from pypto_core.interp.errors import MachineError
from pypto_core.ir.types import TensorType, TileType, Type
from pypto_core.ops.build import static_dims
from pypto_plugins.ops_tile.semantics.common import Evaluate, read_window, result_np_dtype, valid_of, window


def subblock_idx(ctx: Any, call: Any, args: list, kwargs: dict) -> Any:
    return np.int64(ctx.lane)


def block_idx(ctx: Any, call: Any, args: list, kwargs: dict) -> Any:
    return np.int64(0)  # one core group per run


def _mode_axis(kwargs: dict) -> int | None:
    mode = int(kwargs.get("split") or 0)
    return None if mode == 0 else mode - 1


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


def tpush_to_aiv(ctx: Any, call: Any, args: list, kwargs: dict) -> None:
    fifo.push_c2v(ctx, call, args[0], valid_of(ctx, call, 0), _pipe(kwargs), _bytes(ctx, call.args[0].type, args[0]))


def tpush_to_aic(ctx: Any, call: Any, args: list, kwargs: dict) -> None:
    fifo.push_v2c(ctx, call, args[0], valid_of(ctx, call, 0), _pipe(kwargs), _bytes(ctx, call.args[0].type, args[0]))


def _popped_type(call: Any) -> TileType:
    if not isinstance(call.type, TileType):
        raise MachineError(f"{call.op.name} has no tile type: annotate the assignment (or give shape= and "
                           f"dtype=) so that the machine knows what it pops", call.span)
    return call.type


def tpop_from_aic(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    t = _popped_type(call)
    slot = fifo.pop_c2v(ctx, call, _pipe(kwargs), _bytes(ctx, t, None))
    part = fifo.take_lane_part(slot.data, _code(kwargs), ctx.lane, ctx.shape(t), ctx.valid_shape(t),
                               call.op.name)
    return part.astype(result_np_dtype(call), copy=False)


def tpop_from_aiv(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    t = _popped_type(call)
    slots = fifo.pop_v2c(ctx, call, _pipe(kwargs), _bytes(ctx, t, None))
    fifo.check_no_split_lanes_agree(ctx, call, slots, _code(kwargs))
    out = poisoned(ctx.shape(t), result_np_dtype(call))
    for lane, slot in enumerate(slots):
        fifo.place_lane_part(out, slot.data.astype(out.dtype, copy=False), slot.valid, _code(kwargs), lane,
                             call.op.name)
    return out


def tfree_to_aic(ctx: Any, call: Any, args: list, kwargs: dict) -> None:
    fifo.free_c2v(ctx, call, _pipe(kwargs))


def tfree_to_aiv(ctx: Any, call: Any, args: list, kwargs: dict) -> None:
    fifo.free_v2c(ctx, call, _pipe(kwargs))


def _side(ctx: Any) -> str:
    return pipes.AIC if ctx.core == "aic" else pipes.AIV


def reserve_buffer(ctx: Any, call: Any, args: list, kwargs: dict) -> Any:
    """The buffer's address: `base`, or for AUTO (-1) one derived from the name (pipes.py)."""
    name, size, base = str(kwargs["name"]), int(kwargs["size"]), int(kwargs.get("base", -1))
    if ctx.group is None:
        return np.int32(base if base >= 0 else pipes.auto_address(name))
    return np.int32(ctx.group.pipes.reserve(name, size, base, _side(ctx), ctx.task, call.span))


def import_peer_buffer(ctx: Any, call: Any, args: list, kwargs: dict) -> Any:
    """The address of the buffer `peer_func` reserves under `name` (known statically, as to a linker)."""
    table = ctx.group.pipes if ctx.group is not None else None
    return np.int32(pipes.import_peer(table, ctx.machine, str(kwargs["name"]), str(kwargs["peer_func"]), ctx.task,
                                      call.span))


def initialize_pipe(ctx: Any, call: Any, args: list, kwargs: dict) -> None:
    """One side's setup of a pipe: checked and recorded by the core group (outside one: nothing to do)."""
    group = ctx.group
    if group is None:
        return None
    side = pipes.AIC if call.op.name == "system.aic_initialize_pipe" else pipes.AIV
    if side != _side(ctx):
        other = "system.aiv_initialize_pipe" if side == pipes.AIC else "system.aic_initialize_pipe"
        raise MachineError(f"{call.op.name} runs on the {_side(ctx)} ({ctx.task}): that core sets its pipes up "
                           f"with {other}", call.span)
    slot_num = kwargs.get("slot_num")
    setup = pipes.PipeSetup(pipe=_pipe(kwargs), side=side, lane=ctx.lane if side == pipes.AIV else 0,
                            dir_mask=int(kwargs["dir_mask"]), slot_size=int(kwargs["slot_size"]),
                            slot_num=int(slot_num) if slot_num else group.default_depth, task=ctx.task)
    buffers = {pipes.C2V: int(args[0]) if args else 0, pipes.V2C: int(args[1]) if len(args) > 1 else 0}
    group.setup(setup, buffers, call.span)
    return None


def no_effect(ctx: Any, call: Any, args: list, kwargs: dict) -> None:
    """Sync ops order hardware pipes; the machine runs each core's ops in program order already."""
    return None


def task_invalid(ctx: Any, call: Any, args: list, kwargs: dict) -> Any:
    return np.int64(-1)


def evaluators() -> dict[str, Evaluate]:
    return {
        "tile.get_subblock_idx": subblock_idx, "tile.get_block_idx": block_idx,
        "tile.aiv_shard": aiv_shard, "tile.aic_gather": aic_gather,
        "tensor.aiv_shard": aiv_shard, "tensor.aic_gather": aic_gather,
        "tile.tpush_to_aiv": tpush_to_aiv, "tile.tpush_to_aic": tpush_to_aic,
        "tile.tpop_from_aic": tpop_from_aic, "tile.tpop_from_aiv": tpop_from_aiv,
        "system.tfree_to_aic": tfree_to_aic, "system.tfree_to_aiv": tfree_to_aiv,
        "system.reserve_buffer": reserve_buffer, "system.import_peer_buffer": import_peer_buffer,
        "system.aic_initialize_pipe": initialize_pipe, "system.aiv_initialize_pipe": initialize_pipe,
        "system.sync_set": no_effect, "system.sync_wait": no_effect, "system.set_ffts": no_effect,
        "system.syncall": no_effect, "system.cacheinvalid": no_effect, "system.task_invalid": task_invalid,
    }

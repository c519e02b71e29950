"""The numpy semantics of the ops of this plugin's family (comm.py), imported when the reference machine
first runs an op, never by a process that only compiles (pypto_core/ops/semantics_module.py)."""

from __future__ import annotations

from typing import Any

import numpy as np

from pypto_core.interp.errors import MachineError
from pypto_core.ops.semantics_module import Semantics
from pypto_plugins.ops_comm.comm import (
    DEFER_WAIT,
    NOTIFY,
    PUT,
    NotifyOp,
)

semantics = Semantics()


def _word(call: Any, args: list) -> tuple[int, ...]:
    signal = args[0]
    index = tuple(map(int, args[2])) if len(args) > 2 else (0,) * signal.ndim
    if len(index) != signal.ndim or any(not 0 <= i < d for i, d in zip(index, signal.shape)):
        raise MachineError(f"{call.op.name}: signal index {list(index)} is outside shape {list(signal.shape)}",
                           call.span)
    return index


@semantics(NOTIFY)
def write_signal(ctx: Any, call: Any, args: list, kwargs: dict) -> None:
    """target[offsets] = value (op=Set), or += value (op=AtomicAdd); in place. One device: the local tensor."""
    signal, peer, index = args[0], int(args[1]), tuple(map(int, args[2]))
    if peer < 0:
        raise MachineError(f"{NOTIFY}: peer {peer} is not a device index", call.span)
    if any(not 0 <= i < d for i, d in zip(index, signal.shape)):
        raise MachineError(f"{NOTIFY}: signal offsets {list(index)} are outside shape {list(signal.shape)}",
                           call.span)
    if int(kwargs["op"]) == NotifyOp.Set:
        signal[index] = args[3]
    else:
        signal[index] = signal[index] + args[3]


@semantics(DEFER_WAIT)
def wait_for_signal(ctx: Any, call: Any, args: list, kwargs: dict) -> None:
    """Blocks until signal[index] >= value: another task of the core group (the other core, the other lane)
    may notify it; a task running alone, or every task waiting, never gets there (an error)."""
    signal, index = args[0], _word(call, args)
    wanted = args[1]

    def describe() -> str:
        return (f"{DEFER_WAIT} waits for signal{list(index)} >= {wanted} but it holds {signal[index]}, and "
                f"nothing notifies it while the program waits: {NOTIFY} it first")

    try:
        ctx.wait(lambda: bool(signal[index] >= wanted), describe)
    except MachineError as exc:
        raise MachineError(str(exc.args[0]) if exc.args else describe(), call.span) from None


@semantics(PUT)
def write_window(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    """target[offsets : offsets + the tile's valid extents] = the tile, in place; returns target."""
    tile, offsets, target = args[0], tuple(map(int, args[1])), args[2]
    extents = ctx.valid_shape(call.args[0].type)
    full = (1,) * (target.ndim - len(extents)) + tuple(extents)
    for axis, (o, e) in enumerate(zip(offsets, full)):
        if o < 0 or o + e > target.shape[axis]:
            raise MachineError(f"{PUT} writes past the end of dimension {axis}: offset {o} + extent {e} exceeds "
                               f"the target extent {target.shape[axis]}", call.span)
    part = tile[tuple(slice(0, e) for e in extents)].reshape(full)
    target[tuple(slice(o, o + e) for o, e in zip(offsets, full))] = part.astype(target.dtype, copy=False)
    return target

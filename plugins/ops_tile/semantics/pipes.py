"""The numpy semantics of the pipes family's ops (../families/pipes.py), imported when the reference machine
first runs an op, never by a process that only compiles (pypto_core/ops/semantics_module.py)."""

from __future__ import annotations

from typing import Any

import numpy as np

from pypto_core.interp import pipes
from pypto_core.interp.errors import MachineError
from pypto_core.ops.semantics_module import Semantics

semantics = Semantics()


def _side(ctx: Any) -> str:
    return pipes.AIC if ctx.core == "aic" else pipes.AIV


@semantics("system.reserve_buffer")
def reserve_buffer(ctx: Any, call: Any, args: list, kwargs: dict) -> Any:
    """The buffer's address: `base`, or for AUTO (-1) one derived from the name (pipes.py)."""
    name, size, base = str(kwargs["name"]), int(kwargs["size"]), int(kwargs.get("base", -1))
    if ctx.group is None:
        return np.int32(base if base >= 0 else pipes.auto_address(name))
    return np.int32(ctx.group.pipes.reserve(name, size, base, _side(ctx), ctx.task, call.span))


@semantics("system.import_peer_buffer")
def import_peer_buffer(ctx: Any, call: Any, args: list, kwargs: dict) -> Any:
    """The address of the buffer `peer_func` reserves under `name` (known statically, as to a linker)."""
    table = ctx.group.pipes if ctx.group is not None else None
    return np.int32(pipes.import_peer(table, ctx.machine, str(kwargs["name"]), str(kwargs["peer_func"]), ctx.task,
                                      call.span))


@semantics("system.aic_initialize_pipe", "system.aiv_initialize_pipe")
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
    setup = pipes.PipeSetup(pipe=int(kwargs.get("id") or 0), side=side, lane=ctx.lane if side == pipes.AIV else 0,
                            dir_mask=int(kwargs["dir_mask"]), slot_size=int(kwargs["slot_size"]),
                            slot_num=int(slot_num) if slot_num else group.default_depth, task=ctx.task)
    buffers = {pipes.C2V: int(args[0]) if args else 0, pipes.V2C: int(args[1]) if len(args) > 1 else 0}
    group.setup(setup, buffers, call.span)
    return None

"""Pipe setup of a core group: the slot buffers and each side's `*_initialize_pipe`, and the checks
the hardware would enforce on them (docs/passes/expand_mixed_kernel.md, pipe setup).

* `reserve_buffer(name, size, base)` allocates a named buffer; its result is the buffer's address
  (`base`, or for base=-1 / pl.AUTO an address derived from the name alone).
* `import_peer_buffer(name, peer_func)` finds that reserve in `peer_func`'s body, as a linker would,
  so it may run before the peer's reserve (the scheduler runs the AIC first) and still agree.
* `*_initialize_pipe(c2v_buf, v2c_buf, dir_mask=, slot_size=, slot_num=, id=)` records the side's
  setup of pipe `id`; a buffer argument of 0 means "no buffer for that direction".

Checks (each a MachineError naming the pipe / buffer, the task and the fix):
a buffer holds slot_num x slot_size; AIC and AIV (and both AIV lanes) set a pipe up alike; a side
sets a direction up before its first push / pop on it; slot_size covers every tile moved.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from typing import Any

from pypto_core.interp.errors import MachineError
from pypto_core.ir import expr as E
from pypto_core.ir.enums import FunctionType
from pypto_core.ir.visitor import IRVisitor
from pypto_core.ops.opdef import CrossCoreRole
from pypto_core.ops.registry import opdef_of

C2V, V2C = "C2V", "V2C"
DIR_MASK_BITS = {C2V: 1, V2C: 2}  # dir_mask of the pipe setup ops (docs/reference/ops.md)
AIC, AIV = "AIC", "AIV"
# The side that consumes a direction holds its slot buffer (C2V: the AIV's UB, V2C: the AIC's L1).
CONSUMER = {C2V: AIV, V2C: AIC}
_SETUP_OP = {AIC: "system.aic_initialize_pipe", AIV: "system.aiv_initialize_pipe"}
_AUTO_BASE, _AUTO_SLOTS, _AUTO_ALIGN = 0x4000_0000, 0x10_0000, 0x400  # AUTO addresses stay inside INT32


def auto_address(name: str) -> int:
    """The address of an AUTO (base=-1) buffer: a pure function of its name, the same on both sides."""
    return _AUTO_BASE + (zlib.crc32(name.encode()) % _AUTO_SLOTS) * _AUTO_ALIGN


def side_label(side: str, lane: int) -> str:
    return "the AIC" if side == AIC else f"AIV lane {lane}"


@dataclass(frozen=True)
class Buffer:
    name: str
    size: int
    address: int
    side: str  # the memory it lives in: the reserving core's
    task: str  # who reserved it


@dataclass(frozen=True)
class PipeSetup:
    pipe: int
    side: str
    lane: int
    dir_mask: int
    slot_size: int
    slot_num: int  # resolved: the backend's default depth when the op gives none
    task: str

    def covers(self, direction: str) -> bool:
        return bool(self.dir_mask & DIR_MASK_BITS[direction])

    def same_as(self, other: PipeSetup) -> bool:
        return (self.dir_mask, self.slot_size, self.slot_num) == (other.dir_mask, other.slot_size, other.slot_num)

    def describe(self) -> str:
        return (f"{side_label(self.side, self.lane)} ({self.task}): dir_mask={self.dir_mask}, "
                f"slot_size={self.slot_size}, slot_num={self.slot_num}")


class PipeTable:
    """The buffers and pipe setups of one core-group execution."""

    def __init__(self, group: str, default_depth: int) -> None:
        self.group = group
        self.default_depth = default_depth
        self.buffers: dict[str, Buffer] = {}
        self._by_address: dict[int, list[Buffer]] = {}
        self.setups: dict[tuple[int, str, int], PipeSetup] = {}  # (pipe, side, lane) -> its setup
        self._first: dict[int, PipeSetup] = {}  # pipe -> the first setup, which every other must equal

    # -- buffers ---------------------------------------------------------------------------------
    def reserve(self, name: str, size: int, base: int, side: str, task: str, span: Any) -> int:
        address = base if base >= 0 else auto_address(name)
        old = self.buffers.get(name)
        if old is not None:
            if (old.size, old.address) != (size, address):  # both lanes reserve: they must agree
                raise MachineError(f"system.reserve_buffer: buffer '{name}' is reserved by {task} with size={size} "
                                   f"at address {address}, but {old.task} reserved it with size={old.size} at "
                                   f"address {old.address}: every reservation of one buffer must be the same",
                                   span)
            return address
        buf = self.buffers[name] = Buffer(name, size, address, side, task)
        self._by_address.setdefault(address, []).append(buf)
        return address

    def lookup(self, address: int, side: str) -> Buffer | None:
        """The buffer at `address` (the one in `side`'s memory when L1 and UB reuse an address), or None."""
        found = self._by_address.get(address)
        if not found:
            return None
        return next((b for b in found if b.side == side), found[0])

    # -- setups ----------------------------------------------------------------------------------
    def initialize(self, setup: PipeSetup, buffers: dict[str, int], span: Any) -> None:
        op = _SETUP_OP[setup.side]
        for direction, address in buffers.items():
            if not setup.covers(direction) or CONSUMER[direction] != setup.side:
                continue  # only the consumer's buffer holds the slots (the producer's argument is the import)
            if address == 0 and not self._by_address.get(0):
                continue  # no buffer given: nothing to size (e.g. a pipe routed through a GM buffer)
            buf = self.lookup(address, setup.side)
            if buf is None:
                raise MachineError(f"{op} in {setup.task}: its {direction} buffer argument {address} is not the "
                                   f"address of a buffer of core group '{self.group}': pass the result of "
                                   f"system.reserve_buffer (consumer) / system.import_peer_buffer (producer)", span)
            need = setup.slot_num * setup.slot_size
            if buf.size < need:
                raise MachineError(f"{op} in {setup.task}: buffer '{buf.name}' of {direction} pipe {setup.pipe} has "
                                   f"size={buf.size} bytes but slot_num x slot_size = {setup.slot_num} x "
                                   f"{setup.slot_size} = {need}: reserve at least {need} bytes (a buffer holds "
                                   f"slot_num x slot_size)", span)
        first = self._first.setdefault(setup.pipe, setup)
        if not first.same_as(setup):
            raise MachineError(f"pipe {setup.pipe} of core group '{self.group}' is set up differently by "
                               f"{first.describe()} and {setup.describe()}: the AIC and AIV setups (and both AIV "
                               f"lanes') of one pipe must give the same dir_mask, slot_size and slot_num", span)
        self.setups[(setup.pipe, setup.side, setup.lane)] = setup

    def require(self, op: str, fifo: str, direction: str, pipe: int, side: str, lane: int, task: str,
                span: Any) -> PipeSetup:
        """The executing side's setup of `pipe` covering `direction` (setup precedes the first push / pop)."""
        setup = self.setups.get((pipe, side, lane))
        if setup is not None and setup.covers(direction):
            return setup
        bit = DIR_MASK_BITS[direction]
        have = "" if setup is None else f" (its setup has dir_mask={setup.dir_mask}, which does not include {bit})"
        raise MachineError(f"{op} on FIFO {fifo} before {side_label(side, lane)} ({task}) set up pipe {pipe} for "
                           f"{direction}{have}: run {_SETUP_OP[side]}(..., dir_mask={bit} or 3, slot_size=..., "
                           f"id={pipe}) before the first push or pop of the pipe", span)


def check_fits(op: str, fifo: str, what: str, nbytes: int, setup: PipeSetup, span: Any) -> None:
    """slot_size covers every tile moved through the pipe (docs/passes/lower_auto_vector_split.md: a slot holds the full tile)."""
    if nbytes > setup.slot_size:
        raise MachineError(f"{op} on FIFO {fifo}: the {what} tile is {nbytes} bytes but pipe {setup.pipe}'s "
                           f"slot_size is {setup.slot_size} (set up by {setup.task}): raise slot_size to at least {nbytes} "
                           f"on both sides", span)


# -- import_peer_buffer: where the peer reserves the buffer (the linker's view) ---------------------
class _Reserves(IRVisitor):
    def __init__(self, name: str) -> None:
        self.name = name
        self.found: list[E.Call] = []

    def visit_call(self, call: E.Call) -> None:
        opdef = opdef_of(call) if not isinstance(call.op, E.GlobalVar) else None
        reserves = opdef is not None and opdef.cross_core_role is CrossCoreRole.PIPE_SETUP and "size" in call.kwargs
        if reserves and call.kwargs.get("name") == self.name:  # a buffer reserve (the registry's PIPE_SETUP)
            self.found.append(call)
        for a in call.args:
            self.visit_expr(a)


def import_peer(table: PipeTable | None, machine: Any, name: str, peer_func: str, task: str, span: Any) -> int:
    """The address of buffer `name` that `peer_func` reserves. Known statically (as to a linker), so an
    import may run before the peer's reserve; in a group the buffer is registered from that reserve."""
    func = machine.program.get_function(peer_func)
    if func is None:
        raise MachineError(f"system.import_peer_buffer(name='{name}', peer_func='{peer_func}') in {task}: the "
                           f"program has no function '{peer_func}'", span)
    finder = _Reserves(name)
    finder.visit_stmt(func.body)
    if not finder.found:
        raise MachineError(f"system.import_peer_buffer(name='{name}', peer_func='{peer_func}') in {task}: "
                           f"'{peer_func}' reserves no buffer named '{name}' (system.reserve_buffer(name='{name}', "
                           f"size=..., base=...))", span)
    kwargs = finder.found[0].kwargs
    base = int(kwargs.get("base", -1))
    if table is None:
        return base if base >= 0 else auto_address(name)
    side = AIC if func.func_type is FunctionType.AIC else AIV
    return table.reserve(name, int(kwargs["size"]), base, side, peer_func, span)

"""Cross-core FIFOs of a core group and where each AIV lane's data sits in a slot.

Model. A pipe (keyed by its `id`, default 0) has a C2V and a V2C direction; each direction has one
FIFO per AIV lane with `slot_num` slots (from the pipe setup ops, else the backend default). A slot
is taken by a push and given back by the matching `tfree_*`, not by the pop, so a consumer that never
frees eventually blocks its producer.

* C2V: the AIC pushes the full tile into every lane's FIFO; lane L pops its part of it.
* V2C: every lane pushes its part; the AIC pops once, taking one slot from each lane's FIFO, and
  assembles the full tile.

Split codes (docs/passes/lower_auto_vector_split.md, split codes): 0 no split (a lane sees the whole tile /
writes at the origin), 1 / 3 rows, 2 / 4 columns. Lane 0's data starts at 0; lane 1's starts at
e1 * pitch for codes 1 / 2 and (e1 + 1) * pitch for the odd codes 3 / 4, where e1 is lane 1's own
extent on the split axis: the popped tile's valid extent for C2V, the pushed tile's for V2C. A lane
whose extent is 0 moves nothing.

Checks. Before moving anything an op checks the pipe setup of its side (pipes.py: the direction is
set up, the tile fits a slot); when the group's run ends a popped tile never freed is an error (the
hardware ring would stay held); a no-split V2C pop of lanes that pushed different data is an error
(the cube would get one of them). Every push, pop and free is also a happens-before edge (gm_race.py).

Released tiles. A tfree gives the slot back to the producer, which may overwrite it: the freed tile, and every
variable of the frame holding it or a view of it in the same memory space (a copy `h = v`, an if's merge of
it, a reshape or slice), then holds a `frame.Released` marker, and reading one is an error naming the tfree.
A move into another memory space is a copy on the device (its result stays readable), as in
ExpandMixedKernel's tfree placement (docs/passes/expand_mixed_kernel.md, frees).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from pypto_core.interp.dtypes import poisoned
from pypto_core.interp.errors import MachineError
from pypto_core.interp.frame import Released
from pypto_core.interp.gm_race import Clock, GmRaceTracker
from pypto_core.interp.pipes import AIC, AIV, C2V, DIR_MASK_BITS, V2C, PipeSetup, PipeTable, check_fits
from pypto_core.interp.same_values import bytes_differ
from pypto_core.ir.expr import Var
from pypto_core.ir.types import TileType


def split_axis(code: int) -> int | None:
    """The tile axis a split code divides: rows (0) for 1 / 3, columns (1) for 2 / 4."""
    if code not in (0, 1, 2, 3, 4):
        raise MachineError(f"split code {code} is not a pto-isa split code (0..4)")
    return None if code == 0 else (0 if code in (1, 3) else 1)


def lane_start(code: int, lane: int, extent: int) -> int:
    """Where a lane's data starts on the split axis (in elements of that axis)."""
    if lane == 0 or code == 0:
        return 0
    return extent + 1 if code in (3, 4) else extent


@dataclass
class Slot:
    data: np.ndarray
    valid: tuple[int, ...]
    clock: Clock | None = None  # the pusher's clock (gm_race.py): its pop happens after the push
    site: str = ""  # the push, for messages: "tile.tpush_to_aic at <span> (task k_aiv[lane 0])"


class Fifo:
    def __init__(self, name: str, depth: int) -> None:
        self.name = name
        self.depth = depth
        self.slots: deque[Slot] = deque()  # pushed and not yet freed, oldest first
        self.popped = 0  # the first `popped` slots have been popped
        self.consumer = ""  # the task that pops (for the missing-tfree report)
        self.pushes = 0  # push k fills ring slot k % depth ...
        self.frees = 0  # ... which the free of push k - depth released
        self._free_clocks: dict[int, Clock] = {}  # ring slot -> the clock of the consumer that freed it

    def has_room(self) -> bool:
        return len(self.slots) < self.depth

    def has_data(self) -> bool:
        return self.popped < len(self.slots)

    def reuse_clock(self) -> Clock | None:
        """The freeing consumer's clock for the ring slot the next push fills (None: never used)."""
        return self._free_clocks.get(self.pushes % self.depth)

    def push(self, slot: Slot) -> None:
        self.slots.append(slot)
        self.pushes += 1

    def pop(self, task: str = "") -> Slot:
        self.consumer = task or self.consumer
        slot = self.slots[self.popped]
        self.popped += 1
        return slot

    def free(self, op: str, clock: Clock | None = None, span: Any = None) -> None:
        if self.popped == 0:
            raise MachineError(f"{op} releases a slot of FIFO {self.name}, but no popped tile is held", span)
        self.slots.popleft()
        self.popped -= 1
        if clock is not None:
            self._free_clocks[self.frees % self.depth] = clock
        self.frees += 1

    def state(self) -> str:
        held = self.popped
        return (f"{len(self.slots)} of {self.depth} slot(s) used"
                + (f", {held} popped but not yet released by tfree" if held else ""))


_FREE_OP = {C2V: "system.tfree_to_aic", V2C: "system.tfree_to_aiv"}  # who releases a direction's slots


class CoreGroup:
    """The FIFOs, pipe setups (pipes.py) and happens-before (gm_race.py) of one core-group execution."""

    def __init__(self, name: str, lanes: int, default_depth: int) -> None:
        self.name = name
        self.lanes = lanes
        self.default_depth = default_depth
        self.pipes = PipeTable(name, default_depth)
        self.race = GmRaceTracker(name)
        self._depths: dict[tuple[str, int], int] = {}
        self._fifos: dict[tuple[str, int, int], Fifo] = {}
        self._lane_lists: dict[tuple[str, int, int], list[Fifo]] = {}

    def setup(self, setup: PipeSetup, buffers: dict[str, int], span: Any = None) -> None:
        """A side's `*_initialize_pipe`: checked against the buffers and the other setups, sizes the FIFOs."""
        self.pipes.initialize(setup, buffers, span)
        for direction in DIR_MASK_BITS:
            if setup.covers(direction):
                self._depths[(direction, setup.pipe)] = setup.slot_num
                for lane in range(self.lanes):
                    fifo = self._fifos.get((direction, setup.pipe, lane))
                    if fifo is not None:
                        fifo.depth = setup.slot_num

    def fifo(self, direction: str, pipe: int, lane: int) -> Fifo:
        key = (direction, pipe, lane)
        fifo = self._fifos.get(key)
        if fifo is None:
            depth = self._depths.get((direction, pipe), self.default_depth)
            fifo = self._fifos[key] = Fifo(fifo_name(direction, pipe, lane), depth)
        return fifo

    def lane_fifos(self, direction: str, pipe: int, lanes: int) -> list[Fifo]:
        # A FIFO, once made, stays the same object (a later setup changes its depth in place): the list of
        # a direction's lanes is made once.
        key = (direction, pipe, lanes)
        found = self._lane_lists.get(key)
        if found is None:
            found = self._lane_lists[key] = [self.fifo(direction, pipe, lane) for lane in range(lanes)]
        return found

    def finish(self) -> None:
        """The run is over: a popped tile never freed is a missing tfree (the hardware ring stays held)."""
        for (direction, _, _), f in self._fifos.items():
            if f.popped:
                op = _FREE_OP[direction]
                raise MachineError(f"core group '{self.name}' finished with {f.popped} popped tile(s) of FIFO "
                                   f"{f.name} never released by {op}: {f.consumer} must call {op}(tile) after the "
                                   f"last use of every tile it pops")


@lru_cache(maxsize=256)  # every push and pop names its FIFO for the messages it may give
def fifo_name(direction: str, pipe: int, lane: int | None) -> str:
    who = f"AIV lane {lane}" if lane is not None else "the AIV lanes"
    ends = f"AIC -> {who}" if direction == C2V else f"{who} -> AIC"
    return f"{direction} pipe {pipe} ({ends})"


# -- placement of lane data -------------------------------------------------------------------
def take_lane_part(data: np.ndarray, code: int, lane: int, shape: tuple[int, ...],
                   valid: tuple[int, ...], op: str) -> np.ndarray:
    """C2V pop: lane `lane`'s tile of `shape` / `valid` out of the pushed full tile."""
    axis = split_axis(code)
    if axis is None and valid == shape and data.shape == shape:
        # The whole tile, all of it valid: the slot's array is this lane's own copy (push_c2v), which nothing
        # reads once popped, so it is the popped tile as it is.
        return data
    out = poisoned(shape, data.dtype)
    if len(shape) != 2 or data.ndim != 2:
        rows = tuple(slice(0, min(v, d)) for v, d in zip(valid, data.shape))
        out[rows] = data[rows]
        return out
    vr, vc = valid
    if axis is None:
        r, c = min(vr, data.shape[0]), min(vc, data.shape[1])
        out[:r, :c] = data[:r, :c]
        return out
    extent = valid[axis]
    if extent == 0:
        return out  # an empty lane moves nothing
    start = lane_start(code, lane, extent)
    if start + extent > data.shape[axis]:
        raise MachineError(f"{op}: lane {lane} with split code {code} reads {'rows' if axis == 0 else 'columns'} "
                           f"[{start}, {start + extent}) of a pushed tile of shape {list(data.shape)}")
    if axis == 0:
        c = min(vc, data.shape[1])
        out[:extent, :c] = data[start:start + extent, :c]
    else:
        r = min(vr, data.shape[0])
        out[:r, :extent] = data[:r, start:start + extent]
    return out


def place_lane_part(out: np.ndarray, part: np.ndarray, part_valid: tuple[int, ...], code: int, lane: int,
                    op: str) -> None:
    """V2C pop: write lane `lane`'s pushed tile (its valid region) into the assembled tile.

    The V2C pop reads no valid extent (docs/passes/lower_auto_vector_split.md, split codes): with an even code lane l's part
    lands at l * its box, so a partial lane 0 leaves a gap the compiler must not produce; an odd code
    (written by hand; a gather has none) places lane 1 at e1 + 1 like C2V.
    """
    axis = split_axis(code)
    if part.ndim != 2 or out.ndim != 2:
        region = tuple(slice(0, min(v, d)) for v, d in zip(part_valid, out.shape))
        out[region] = part[region]
        return
    vr, vc = part_valid
    if axis is None:
        out[:vr, :vc] = part[:vr, :vc]
        return
    extent = part_valid[axis]
    if extent == 0:
        return
    start = lane * part.shape[axis] if code in (1, 2) else lane_start(code, lane, extent)
    if start + extent > out.shape[axis]:
        raise MachineError(f"{op}: lane {lane} with split code {code} writes "
                           f"{'rows' if axis == 0 else 'columns'} [{start}, {start + extent}) of a popped tile "
                           f"of shape {list(out.shape)}")
    if axis == 0:
        out[start:start + extent, :vc] = part[:extent, :vc]
    else:
        out[:vr, start:start + extent] = part[:vr, :extent]


# -- the blocking protocol (called by the cross-core ops' evaluate) ----------------------------------
# Each op first checks what the hardware would (the executing side set the direction up, the tile fits
# a slot), then waits, then moves data and the happens-before edge (gm_race.py).
def push_c2v(ctx: Any, call: Any, data: np.ndarray, valid: tuple[int, ...], pipe: int, nbytes: int) -> None:
    """AIC: the full tile into every lane's C2V FIFO (waits until each has a free slot)."""
    op, span = call.op.name, call.span
    group = require_group(ctx, op, AIC)
    fifos = group.lane_fifos(C2V, pipe, group.lanes)
    name = fifo_name(C2V, pipe, None if group.lanes > 1 else 0)
    setup = group.pipes.require(op, name, C2V, pipe, AIC, 0, ctx.task, span)
    check_fits(op, name, "pushed", nbytes, setup, span)
    if not all(f.has_room() for f in fifos):
        ctx.wait(lambda: all(f.has_room() for f in fifos),
                 lambda: _waiting(op, "a free slot of", [f for f in fifos if not f.has_room()]))
    race = group.race
    for f in fifos:
        race.acquire(ctx.task, f.reuse_clock())
    clock = race.release(ctx.task)
    for f in fifos:
        f.push(Slot(data.copy(), valid, clock))


def pop_c2v(ctx: Any, call: Any, pipe: int, nbytes: int) -> Slot:
    """AIV lane: the oldest unpopped slot of its C2V FIFO (waits for one)."""
    op, span = call.op.name, call.span
    group = require_group(ctx, op, AIV)
    fifo = group.fifo(C2V, pipe, ctx.lane)
    setup = group.pipes.require(op, fifo.name, C2V, pipe, AIV, ctx.lane, ctx.task, span)
    check_fits(op, fifo.name, "popped", nbytes, setup, span)
    if not fifo.has_data():
        ctx.wait(fifo.has_data, lambda: _waiting(op, "data in", [fifo]))
    slot = fifo.pop(ctx.task)
    group.race.acquire(ctx.task, slot.clock)
    return slot


def free_c2v(ctx: Any, call: Any, pipe: int) -> None:
    group = require_group(ctx, call.op.name, AIV)
    group.fifo(C2V, pipe, ctx.lane).free(call.op.name, group.race.release(ctx.task), call.span)
    release_popped(ctx, call)


def release_popped(ctx: Any, call: Any) -> None:
    """After a tfree: the frame's variables holding the freed tile (or a view of it) in its memory space hold
    a Released marker, so that a later read is an error (the module docstring)."""
    var = call.args[0] if call.args else None
    code, frame = ctx.code, ctx.frame
    slot = code.slots.lookup(var) if isinstance(var, Var) and code is not None else None
    if slot is None or not isinstance(frame[slot], np.ndarray):
        return
    freed = frame[slot]
    marker = Released(call.op.name, call.span)
    ndarray = np.ndarray
    for i in _same_space_slots(code, slot, var, len(frame)):
        value = frame[i]
        if value is freed or (value.__class__ is ndarray and value.base is freed):
            frame[i] = marker


def _same_space_slots(code: Any, slot: int, var: Var, size: int) -> tuple[int, ...]:
    """The frame slots a released tile may be held in: its own and those of variables in its memory space
    (per function and tfree operand, once the function's slots are all known)."""
    cached = code.frozen and size == code.nslots
    found = code.release_slots.get(slot) if cached else None
    if found is None:
        space, names = _space(var), code.slots.vars
        found = tuple(i for i in range(1, size) if i == slot or _space(names[i]) is space)
        if cached:
            code.release_slots[slot] = found
    return found


def _space(var: Any) -> Any:
    t = getattr(var, "type", None)
    return t.memory_space if isinstance(t, TileType) else None


def push_v2c(ctx: Any, call: Any, data: np.ndarray, valid: tuple[int, ...], pipe: int, nbytes: int) -> None:
    """AIV lane: its tile into its V2C FIFO (waits for a free slot)."""
    op, span = call.op.name, call.span
    group = require_group(ctx, op, AIV)
    fifo = group.fifo(V2C, pipe, ctx.lane)
    setup = group.pipes.require(op, fifo.name, V2C, pipe, AIV, ctx.lane, ctx.task, span)
    check_fits(op, fifo.name, "pushed", nbytes, setup, span)
    if not fifo.has_room():
        ctx.wait(fifo.has_room, lambda: _waiting(op, "a free slot of", [fifo]))
    group.race.acquire(ctx.task, fifo.reuse_clock())
    fifo.push(Slot(data.copy(), valid, group.race.release(ctx.task), f"{op} at {_where(span)} (task {ctx.task})"))


def pop_v2c(ctx: Any, call: Any, pipe: int, nbytes: int) -> list[Slot]:
    """AIC: one slot from every lane's V2C FIFO (waits until each lane has pushed)."""
    op, span = call.op.name, call.span
    group = require_group(ctx, op, AIC)
    fifos = group.lane_fifos(V2C, pipe, group.lanes)
    name = fifo_name(V2C, pipe, None if group.lanes > 1 else 0)
    setup = group.pipes.require(op, name, V2C, pipe, AIC, 0, ctx.task, span)
    check_fits(op, name, "popped", nbytes, setup, span)
    ctx.wait(lambda: all(f.has_data() for f in fifos),
             lambda: _waiting(op, "data in", [f for f in fifos if not f.has_data()]))
    slots = [f.pop(ctx.task) for f in fifos]
    for slot in slots:
        group.race.acquire(ctx.task, slot.clock)
    return slots


def free_v2c(ctx: Any, call: Any, pipe: int) -> None:
    group = require_group(ctx, call.op.name, AIC)
    clock = group.race.release(ctx.task)
    for f in group.lane_fifos(V2C, pipe, group.lanes):
        f.free(call.op.name, clock, call.span)
    release_popped(ctx, call)


def check_no_split_lanes_agree(ctx: Any, call: Any, slots: list[Slot], code: int) -> None:
    """V2C pop with split code 0: every lane wrote its tile at the slot's origin, so where two lanes pushed
    non-empty valid regions the cube gets one of them, undetermined: they must hold the same data.
    A lane pushing an empty (valid 0) tile moves nothing (the lane-1 replay of docs/passes/split_vector_kernel.md)."""
    if code != 0 or len(slots) < 2:
        return
    full = [s for s in slots if s.valid and min(s.valid) > 0]
    for first, other in zip(full, full[1:]):
        common = tuple(slice(0, min(a, b, da, db)) for a, b, da, db in
                       zip(first.valid, other.valid, first.data.shape, other.data.shape))
        diff = bytes_differ(first.data[common], other.data[common])
        if diff is not None and not diff.any():
            continue
        at = ""
        if diff is not None:
            index = tuple(int(i) for i in np.argwhere(diff)[0])
            at = f" at element {list(index)} ({first.data[common][index]!s} vs {other.data[common][index]!s})"
        raise MachineError(
            f"{call.op.name} at {_where(call.span)} (task {ctx.task}) pops a no-split (split=0) V2C tile that two "
            f"lanes pushed with different data{at}: the {first.site} and the {other.site}; with split 0 every "
            f"lane writes at the slot's origin, so the cube gets one of them, undetermined: push the same data "
            f"from every lane, let the other lanes push an empty tile (valid_shape [0, 0], SplitVectorKernel's lane-1 "
            f"replay), or split the tile (split=1..4) so that each lane delivers its own part", call.span)


def _where(span: Any) -> str:
    return span.to_string() if hasattr(span, "to_string") else str(span)


def require_group(ctx: Any, op: str, side: str) -> CoreGroup:
    """The core group of a cross-core op, which must run on `side` (the AIC pushes to the AIV, ...)."""
    group = ctx.group
    if group is None:
        raise MachineError(f"{op} runs outside a core group ({ctx.where()}): cross-core transfers need the AIC "
                           f"and AIV functions called together, from a Group function")
    if (ctx.core == "aic") != (side == AIC):
        raise MachineError(f"{op} runs on the {'AIC' if ctx.core == 'aic' else 'AIV'} ({ctx.where()}), but it is an "
                           f"op of the {side}: move it to the {side} function of the group")
    return group


def _waiting(op: str, what: str, fifos: list[Fifo]) -> str:
    return "; ".join(f"{op} waits for {what} FIFO {f.name} ({f.state()})" for f in fifos)

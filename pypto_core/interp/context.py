"""EvalContext: what an op's `evaluate` receives about where it runs.

The evaluate signature (OpDef.evaluate: an op's semantics, registered by its op family):

    evaluate(ctx: EvalContext, call: Call, args: list, kwargs: dict) -> value

* `call` is the IR Call being executed (its `type` is the result type, `call.args[i].type` the
  operand types, `call.span` its location);
* `args` are the evaluated operands: numpy arrays for tensors and tiles (tensors by reference:
  writing one writes the caller's array; tiles are values that nothing mutates, and a loaded one
  may be a read-only view of its tensor, see `unchanging`), numpy scalars of their dtype for
  scalars, tuples for MakeTuple operands (offsets, shapes);
* `kwargs` are the call's keyword arguments completed with the OpDef's declared defaults;
* the result is a numpy array (for tiles a fresh one, an unchanged operand, or a view that
  `unchanging` allows), a numpy scalar, a tuple for tuple-typed results, or None for ops used as
  statements.

An evaluate may carry `evaluate.specialize(code, call, kwargs)`: the machine calls it once per call
site and uses the evaluate it returns (or the general one for None) there; it must compute the same
result and may only assume what the call's types and constant operands say.

The machine, not the op, applies the result type's valid region: elements of a tile result
outside `valid_shape` are overwritten with poison (dtypes.poison_value) after evaluate returns.
`ctx` gives evaluate what it cannot see in its operands: the shape and valid shape of a type in the
current frame (dims may be dynamic or lane dependent), the AIV lane (`tile.get_subblock_idx`), the
core group's FIFOs and the lane barrier.

Inside a core group (`ctx.group` is not None) `ctx.group.pipes` holds the pipe setups (pipes.py).
`ctx.race` is the happens-before of the concurrent tasks (gm_race.py): a core group's tasks, or the
lanes of a split_aiv function / region forked outside a group, else None. An op that
reads or writes a window of a tensor operand reports it with `gm_race.note(ctx, call, index, READ |
WRITE, view)` (test `ctx.race is not None` first: with no concurrent task nothing is tracked) and is
marked `@gm_race.notes_own_gm_accesses`; so is one that touches no tensor data (a view, a shape query).
For any other op the machine reports a whole read of each tensor operand the registry says it reads
(calls.py), so a new tensor op is race-checked without code of its own.

Tile views that alias: on the device a `tile.slice` is a window of its parent's buffer,
so an op that writes its result into an operand's buffer (`matmul_acc` into an Acc slice) writes the
parent. An evaluate that returns such a window registers it with `ctx.bind_alias(value, target)` (target:
a writable numpy view of the parent's array); the machine then copies the valid region of a result written
into `value` (an operand with a Write / ReadWrite effect) into `target` (exprs.write_through).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from pypto_core.interp.dtypes import np_dtype, poisoned
from pypto_core.interp.errors import MachineError
from pypto_core.ir.dtypes import DataType
from pypto_core.ir.types import TensorType, TileType, Type

if TYPE_CHECKING:
    from pypto_core.interp.code import FunctionCode
    from pypto_core.interp.fifo import CoreGroup
    from pypto_core.interp.gm_race import GmRaceTracker
    from pypto_core.interp.lanes import LaneSet
    from pypto_core.interp.machine import Machine
    from pypto_core.interp.scheduler import Scheduler


# id(tile value) -> (a weak reference to it, the writable view of its parent's buffer it stands for)
_ALIASES: dict[int, tuple[weakref.ref, np.ndarray]] = {}


def bind_alias(value: np.ndarray, target: np.ndarray) -> None:
    """Writes into the tile `value` (same shape as `target`) go to `target`, a view of a parent buffer."""
    key = id(value)
    # The table is bound into the callback: at interpreter exit module globals may already be None.
    _ALIASES[key] = (weakref.ref(value, lambda _ref, key=key, table=_ALIASES: table.pop(key, None)), target)


def alias_target(value: Any) -> np.ndarray | None:
    """The parent-buffer view a tile value writes through to, or None for an ordinary (unaliased) value."""
    entry = _ALIASES.get(id(value))
    if entry is None or entry[0]() is not value:
        return None
    return entry[1]


class EvalContext:
    __slots__ = ("machine", "code", "frame", "lane", "lane_count", "core", "group", "lane_set", "sched",
                 "task", "stable", "race")

    def __init__(self, machine: Machine, code: FunctionCode | None, *, lane: int = 0, lane_count: int = 1,
                 core: str = "host", group: CoreGroup | None = None, lane_set: LaneSet | None = None,
                 sched: Scheduler | None = None, task: str = "", race: GmRaceTracker | None = None) -> None:
        self.machine = machine
        self.code = code
        self.frame: list[Any] = []
        self.lane = lane  # tile.get_subblock_idx()
        self.lane_count = lane_count  # AIV lanes running this code (1 or 2)
        # "host" (orchestration / InCore as written), "aic", "aiv", "lane" (a forked split_aiv function or
        # region), "cube" (lane 0 running a cube op once for every lane of a fork: lane_ops.py)
        self.core = core
        self.group = group  # the FIFOs, inside a core-group execution
        self.lane_set = lane_set  # the lane barrier, inside a split execution
        self.sched = sched
        self.task = task
        self.stable: frozenset[int] = frozenset()  # ids of the parameter Vars nothing writes (stable.py)
        self.race = race  # the GM race tracker of the concurrent tasks this one belongs to (gm_race.py)

    def derive(self, code: FunctionCode | None = None, **changes: Any) -> EvalContext:
        new = EvalContext(self.machine, code if code is not None else self.code, lane=self.lane,
                          lane_count=self.lane_count, core=self.core, group=self.group,
                          lane_set=self.lane_set, sched=self.sched, task=self.task, race=self.race)
        new.stable = self.stable  # a split region's lanes are the same invocation; invoke() recomputes it
        for key, value in changes.items():
            setattr(new, key, value)
        if "task" in changes and new.race is not None and new.task != self.task:
            self._fork(new)
        return new

    def _fork(self, child: EvalContext) -> None:
        """`child` is a new concurrent task (the machine derives one context per task).

        Entering a core group: the group's end-of-run check runs once its scheduler finishes. Entering
        the lanes of a fork outside a group: a fresh tracker, nothing to inherit. A task forked inside a
        group (a split region on a lane): it starts after what its parent did and its parent continues
        after it (happens-before for the GM race check, gm_race.py)."""
        race, sched = child.race, child.sched
        assert race is not None
        if self.race is not race:
            if child.group is not None and self.group is None and sched is not None:
                sched.after_run(child.group.finish)
            return
        race.fork(self.task, child.task)
        if sched is not None and sched is not self.sched:
            sched.after_run(lambda: race.join(self.task, child.task))

    # -- types in the current frame -------------------------------------------------------------
    def dims(self, exprs: Sequence[Any]) -> tuple[int, ...]:
        """Shape expressions evaluated in the current frame."""
        assert self.code is not None
        return self.code.dims_fn(exprs)(self.frame)

    def shape(self, t: Type) -> tuple[int, ...]:
        if not isinstance(t, (TensorType, TileType)):
            raise MachineError(f"expected a tensor or tile type, got {t}")
        return self.dims(t.shape)

    def valid_shape(self, t: Type) -> tuple[int, ...]:
        """A tile's valid extents (clipped to its shape); a tensor's view valid shape or shape."""
        assert self.code is not None
        static = self.code.static_valid(t)
        if static is not None:
            return static
        if isinstance(t, TileType):
            shape = self.dims(t.shape)
            if t.tile_view is None or not t.tile_view.valid_shape:
                return shape
            valid = self.dims(t.tile_view.valid_shape)
            return tuple(max(0, min(v, s)) for v, s in zip(valid, shape))
        if isinstance(t, TensorType):
            view = t.tensor_view
            if view is not None and view.valid_shape:
                return self.dims(view.valid_shape)
            return self.dims(t.shape)
        raise MachineError(f"expected a tensor or tile type, got {t}")

    def unchanging(self, call: Any, index: int) -> bool:
        """Whether operand `index` of `call` is a tensor that nothing writes while this invocation runs.

        Then the operand is a read-only view of the argument, and a window of it reads the same values
        as a copy would for as long as the current function runs (tiles cannot outlive it): stable.py.
        """
        return id(call.args[index]) in self.stable

    bind_alias = staticmethod(bind_alias)
    alias_target = staticmethod(alias_target)

    @staticmethod
    def np_dtype(dtype: DataType) -> np.dtype:
        return np_dtype(dtype)

    @staticmethod
    def poisoned(shape: Sequence[int], dtype: np.dtype) -> np.ndarray:
        return poisoned(tuple(int(s) for s in shape), dtype)

    # -- coroutines -------------------------------------------------------------------------------
    def wait(self, ready: Callable[[], bool], describe: Callable[[], str]) -> None:
        """Block until `ready()`; outside a core group nothing else could make it ready."""
        if ready():
            return
        if self.sched is None:
            raise MachineError(f"{describe()}, but {self.where()} runs alone (no core group)")
        self.sched.wait(ready, describe)

    def exchange(self, site: object, what: str, value: Any) -> list[Any]:
        """Lane barrier: every lane's `value` at the k-th execution of `site` (see lanes.py)."""
        if self.lane_set is None or self.lane_count == 1:
            return [value]
        return self.lane_set.exchange(self, site, what, value)

    def where(self) -> str:
        if self.task:
            return self.task
        return self.code.func.name if self.code is not None else "the program"

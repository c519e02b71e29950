"""GM races between concurrent tasks, so that a missing GM fence is found, and the lanes of a split
execution judged rather than scheduled (docs/architecture.md, the reference machine).

Happens-before between the tasks of one concurrent execution -- a core group (the AIC task, every AIV
lane task, the lanes of a split region forked inside one), or the lanes of a split_aiv function or
region forked outside a group (machine.py gives such a fork its own tracker) -- is tracked with vector
clocks. Its edges:

* a push records the pusher's clock in the slot; the pop of that slot joins it (fifo.py);
* a tfree records the consumer's clock for the slot; the producer's next push into it joins it;
* a lane barrier (LaneSet.exchange: aic_gather before ExpandMixedKernel, a forked function's cube op
  run once for every lane: lane_ops.py) joins every lane;
* a task forked on a lane (a split region) starts from its parent's clock; the parent joins it at the end.

`system.syncall` / `sync_set` / `sync_wait` are no-ops in the machine (plugins/ops_tile/families/sync.py), so
they are no edges: a program ordering GM only through them is reported.

Every GM access by a memory op (tile.load / store, ...: plugins/ops_tile/families/memory.py), and the
whole read of each tensor operand of any other op (a tensor-level `pl.add(x, y)` in a split region reads
all of x and y: calls.py), is kept per tensor buffer, task, kind and window. Two accesses of overlapping elements by two tasks where
neither happens-before the other are a race, whatever order the scheduler ran them in (it runs the AIC
first: the store has happened before the load in real time, but without a FIFO edge there is no
happens-before):

* a read and a write: the read sees one of two values depending on the schedule;
* two writes of different values: GM keeps one of them depending on the schedule. Two writes of the
  same values are fine (a dual-dispatch kernel's lanes, before split_vector_kernel's lane-1 replay, store the same
  data twice), and so are two atomic (accumulating) stores, which commute.

With no concurrent task nothing is tracked (EvalContext.race is None: the fast path).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np
from numpy.lib.array_utils import byte_bounds

from pypto_core.interp.errors import MachineError
from pypto_core.interp.same_values import Difference, first_difference
from pypto_core.ir import expr as E
from pypto_core.ir.types import TensorType

READ, WRITE = "read", "write"
Evaluate = TypeVar("Evaluate", bound=Callable[..., Any])
Clock = dict[str, int]  # task -> the last of its events known to have happened before


@dataclass(frozen=True)
class _Region:
    """A window of a tensor buffer: its byte bounds, its element box when it is a box of the buffer."""
    lo: int
    hi: int
    box: tuple[tuple[int, int], ...] | None
    view: np.ndarray


@dataclass(frozen=True)
class _Access:
    kind: str
    task: str
    epoch: int
    core: str
    op: str
    span: Any
    tensor: str
    region: _Region
    data: np.ndarray | None = None  # a write's values (a snapshot): compared with a concurrent write's
    atomic: bool = False  # an accumulating store (atomic=1)


def _root(a: np.ndarray) -> np.ndarray:
    while isinstance(a.base, np.ndarray):
        a = a.base
    return a


def _region(view: np.ndarray, root: np.ndarray) -> _Region:
    lo, hi = byte_bounds(view)
    box = None
    if view.ndim == root.ndim and view.strides == root.strides and root.flags.c_contiguous:
        start = np.unravel_index((lo - byte_bounds(root)[0]) // root.itemsize, root.shape) if root.ndim else ()
        box = tuple((int(s), int(s) + n) for s, n in zip(start, view.shape))
    return _Region(lo, hi, box, view)


def _overlap(a: _Region, b: _Region) -> bool:
    if a.hi <= b.lo or b.hi <= a.lo:
        return False
    if a.box is not None and b.box is not None:
        return all(s1 < e2 and s2 < e1 for (s1, e1), (s2, e2) in zip(a.box, b.box))
    return bool(np.shares_memory(a.view, b.view))  # other views (strided, reinterpreted): exact test


class _TensorAccesses:
    def __init__(self, root: np.ndarray) -> None:
        self.root = root  # kept alive so that its id names it for the whole group
        # (task, kind) -> window key -> the latest access: a later access of the same window by the same
        # task dominates an earlier one (its epoch is larger), so only the latest is kept, in epoch order.
        self.by: dict[tuple[str, str], dict[tuple, _Access]] = {}


class GmRaceTracker:
    """The vector clocks of one concurrent execution (a core group, a fork's lanes) and its GM accesses."""

    def __init__(self, group: str) -> None:
        self.group = group  # what runs concurrently, for messages: "core group 'k'", "the lanes of 'k'"
        self._clocks: dict[str, Clock] = {}
        self._tensors: dict[int, _TensorAccesses] = {}

    # -- happens-before ----------------------------------------------------------------------------
    def clock(self, task: str) -> Clock:
        c = self._clocks.get(task)
        if c is None:
            c = self._clocks[task] = {task: 1}
        return c

    def release(self, task: str) -> Clock:
        """What a push / tfree / barrier hands on: the task's clock now (its later events are not in it)."""
        c = self.clock(task)
        snapshot = dict(c)
        c[task] += 1
        return snapshot

    def acquire(self, task: str, snapshot: Clock | None) -> None:
        """A pop / a push into a freed slot / a barrier: everything before the release happened before."""
        if not snapshot:
            return
        c = self.clock(task)
        for t, n in snapshot.items():
            if c.get(t, 0) < n:
                c[t] = n

    def fork(self, parent: str, child: str) -> None:
        """`child` starts after what `parent` did so far (a split region run again reuses its lanes' names:
        the new run continues their clocks)."""
        self.acquire(child, self.release(parent))
        self.clock(child)[child] += 1

    def join(self, parent: str, child: str) -> None:
        self.acquire(parent, self.release(child))

    # -- accesses ----------------------------------------------------------------------------------
    def record(self, ctx: Any, call: E.Call, index: int, kind: str, view: np.ndarray, atomic: bool = False) -> None:
        """Operand `index` of `call` (a tensor) is read / written through `view` (a write: after writing
        it, so that `view` holds the values written); a race raises."""
        if view.size == 0:
            return
        root = _root(view)
        accesses = self._tensors.get(id(root))
        if accesses is None or accesses.root is not root:
            accesses = self._tensors[id(root)] = _TensorAccesses(root)
        task = ctx.task
        clock = self.clock(task)
        new = _Access(kind, task, clock[task], ctx.core, call.op.name, call.span, _tensor_name(call.args[index]),
                      _region(view, root), view.copy() if kind == WRITE else None, atomic)
        for (other, other_kind), records in accesses.by.items():
            if other == task or (other_kind == READ and kind == READ):
                continue  # same task (program order), or two reads
            seen = clock.get(other, 0)
            for old in reversed(records.values()):
                if old.epoch <= seen:
                    break  # this one and every older one happened before
                if not _overlap(old.region, new.region):
                    continue
                if kind == WRITE and other_kind == WRITE:
                    if new.atomic and old.atomic:
                        continue  # accumulations commute
                    assert old.data is not None and new.data is not None
                    differ = first_difference(old.region, old.data, new.region, new.data, root)
                    if differ is None:
                        continue  # the same values: whichever lands last, GM holds them
                    raise MachineError(_write_write_message(new, old, differ), call.span)
                raise MachineError(_race_message(new, old), call.span)
        records = accesses.by.setdefault((task, kind), {})
        key = (new.region.lo, view.shape, view.strides)
        records.pop(key, None)
        records[key] = new


def notes_own_gm_accesses(evaluate: Evaluate) -> Evaluate:
    """Decorator: this evaluate reports the tensor windows it reads and writes itself (or touches none: a
    view, a shape query); without it the machine reports a whole read of every tensor operand the op
    reads (calls.py), which would be too wide for an op that reads a window (tile.load)."""
    evaluate.notes_own_gm_accesses = True  # type: ignore[attr-defined]
    return evaluate


def notes_itself(evaluate: Any) -> bool:
    return bool(getattr(evaluate, "notes_own_gm_accesses", False))


def note(ctx: Any, call: E.Call, index: int, kind: str, view: np.ndarray, atomic: bool = False) -> None:
    """Record a GM access of operand `index` of `call` through `view` (only when tasks run concurrently,
    ctx.race, and only for tensor operands: tiles are values, not GM)."""
    race = ctx.race
    if race is not None and isinstance(call.args[index].type, TensorType):
        race.record(ctx, call, index, kind, view, atomic)


def window_view(array: np.ndarray, offsets: Any, extents: Any) -> np.ndarray:
    """The window array[offsets : offsets + extents] (clipped at the end, as the memory ops read)."""
    return array[tuple(slice(int(o), int(o) + max(0, int(e))) for o, e in zip(offsets, extents))]


# -- the report ---------------------------------------------------------------------------------------
def _tensor_name(e: E.Expr) -> str:
    return e.name_hint.split("__")[0] if isinstance(e, E.Var) else "?"


def _unit(core: str) -> str:
    return "cube" if core in ("aic", "cube") else "vector"  # "cube": a forked function's cube op (lane_ops.py)


def _where(span: Any) -> str:
    return span.to_string() if hasattr(span, "to_string") else str(span)


def _race_message(new: _Access, old: _Access) -> str:
    def act(a: _Access) -> str:
        return f"{_unit(a.core)} {a.op.split('.')[-1]}"

    verb = {READ: "reads", WRITE: "writes"}
    first, then = _unit(old.core), _unit(new.core)
    if first == "cube" and then == "vector":
        fix = (f"a {act(old)} followed by a {act(new)} of the same GM needs a fence (a token tpush_to_aiv / "
               f"tpop_from_aic between them)")
    elif first == "vector" and then == "cube":
        fix = (f"a {act(old)} followed by a {act(new)} of the same GM needs a fence (a token tpush_to_aic / "
               f"tpop_from_aiv between them)")
    else:
        fix = ("the two tasks share no FIFO: order them through a lane barrier (aic_gather) or through the "
               "other core (a token pushed to it and back), or let each touch its own elements")
    alias = f" (called '{old.tensor}' in {old.task})" if old.tensor != new.tensor else ""
    return (f"GM race on tensor '{new.tensor}'{alias}: the {act(new)} at {_where(new.span)} (task {new.task}) "
            f"{verb[new.kind]} elements the {act(old)} at {_where(old.span)} (task {old.task}) {verb[old.kind]}, "
            f"with no happens-before between them; {fix}")


def _write_write_message(new: _Access, old: _Access, differ: Difference) -> str:
    def act(a: _Access) -> str:
        return f"{_unit(a.core)} {a.op.split('.')[-1]}"

    at, new_value, old_value = differ
    where = f" (element {list(at)}: {new_value!s} vs {old_value!s})" if at else ""
    if _unit(old.core) == _unit(new.core) == "vector":
        fix = ("let each lane write its own elements (offset the window by tile.get_subblock_idx()), make both "
               "write identical data, or order the writes through a lane barrier (aic_gather) or a FIFO token")
    else:
        fix = ("order the writes with a token through a FIFO (tpush / tpop) between them, or let each write its "
               "own elements")
    alias = f" (called '{old.tensor}' in {old.task})" if old.tensor != new.tensor else ""
    return (f"GM race on tensor '{new.tensor}'{alias}: the {act(new)} at {_where(new.span)} (task {new.task}) and "
            f"the {act(old)} at {_where(old.span)} (task {old.task}) write different values to the same elements"
            f"{where}, with no happens-before between them: which one GM keeps depends on the schedule; {fix}")

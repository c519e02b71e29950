"""The Machine: executes a Program's functions on numpy values (docs/architecture.md, the reference machine).

Calls dispatch on what the callee is and where the caller runs:

* an AIC or AIV function called from outside a core group starts one: consecutive AIC / AIV calls
  of a body (a Group function's body, or an orchestration calling an AIC + AIV pair) that talk to the
  other core run together as cooperating coroutines connected by FIFOs (fifo.py, scheduler.py); a
  kernel with no cross-core op runs alone (stmts.py, core-group batches);
* an AIV function marked `split_aiv` / `dual_aiv_dispatch` runs on the backend's AIV lanes, with
  `tile.get_subblock_idx()` = 0, 1; an InCore function so marked (LowerAutoVectorSplit output,
  before ExpandMixedKernel) forks its lanes the same way, and so does a `pl.split_aiv` region met
  outside a lane, or a CORE_GROUP scope holding one (the split_aiv kernel it is outlined into);
* everything else runs in place, in a new frame.

The lanes of a fork are judged, not scheduled: a fork outside a core group gets its
own GM race tracker (gm_race.py), so a lane reading what the other wrote, or both writing different
values, with no lane barrier between them is an error whatever order the lanes ran in; and a forked
function's cube ops run once, on lane 0, for every lane (lane_ops.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

import numpy as np

from pypto_core.interp.blas import blas_threads
from pypto_core.interp.code import FunctionCode
from pypto_core.interp.context import EvalContext
from pypto_core.interp.errors import MachineError
from pypto_core.interp.fifo import CoreGroup
from pypto_core.interp.gm_race import GmRaceTracker
from pypto_core.interp.lanes import LaneSet
from pypto_core.interp.limits import IterationBudget
from pypto_core.interp.onchip import OnChipMemory
from pypto_core.interp.scheduler import Scheduler
from pypto_core.interp.shape import CoreGroupShape, active_backend_object, active_shape, shape_from_backend
from pypto_core.ir import expr as E
from pypto_core.ir.enums import CORE_KERNEL_TYPES, FunctionType
from pypto_core.ir.function import Function, Program
from pypto_core.ir.lanes import runs_on_lanes
from pypto_core.ir.visitor import IRVisitor

_FORKING_TYPES = (FunctionType.InCore, FunctionType.Opaque, FunctionType.Inline)


class Machine:
    def __init__(self, program: Program | Function, *, shape: CoreGroupShape | None = None,
                 backend: Any = None, blas_threads: int | None = 1, addresses: bool = True) -> None:
        """`blas_threads`: BLAS threads for the products while a run lasts (blas.py); None: leave BLAS alone.
        `addresses`: tiles with MemRefs live in on-chip bytes (onchip.py); False runs every tile as a value."""
        if isinstance(program, Function):
            program = Program([program], program.name)
        self.program = program
        if shape is None:
            shape = shape_from_backend(backend) if backend is not None else active_shape()
        self.shape = shape
        self.backend = backend if backend is not None else shape.backend  # the shape's backend bounds the bytes
        self.addresses = addresses
        self.onchip = OnChipMemory(self.backend_object())
        self.blas_threads = blas_threads
        self.budget = IterationBudget()  # renewed by each run()
        self._codes: dict[int, tuple[Function, FunctionCode]] = {}
        self._called: set[str] | None = None  # names of the called functions (the program never changes)
        self._lane_funcs: set[str] | None = None  # names of the functions a fork's lanes may run

    def backend_object(self) -> Any:
        """The Backend whose capacities bound the on-chip bytes: the one given, else the active one."""
        if not isinstance(self.backend, str) and self.backend is not None:
            return self.backend
        if isinstance(self.backend, str):
            from pypto_core.backend.registry import get_backend

            self.backend = get_backend(self.backend)
            return self.backend
        self.backend = active_backend_object()
        return self.backend

    # -- functions -----------------------------------------------------------------------------
    def program_function(self, name: str, span: Any = None) -> Function:
        func = self.program.get_function(name)
        if func is None:
            raise MachineError(f"call of '{name}', which the program does not define", span)
        return func

    def code_of(self, func: Function) -> FunctionCode:
        entry = self._codes.get(id(func))
        if entry is None or entry[0] is not func:
            entry = self._codes[id(func)] = (func, FunctionCode(self, func))
        return entry[1]

    def roots(self) -> list[Function]:
        """The functions no other function calls: the possible entries."""
        if self._called is None:
            self._called = _called_names(self.program)
        return [f for f in self.program.functions.values() if f.name not in self._called]

    def may_run_on_lanes(self, func: Function) -> bool:
        """Whether `func` may run on the lanes of a forked split_aiv function: it forks itself, or one that
        does calls it (transitively). Decided per function at compile time (lane_ops.py)."""
        if self._lane_funcs is None:
            self._lane_funcs = _lane_functions(self.program)
        return func.name in self._lane_funcs

    def default_entry(self) -> Function:
        """The function no other function calls (an Orchestration one if several)."""
        roots = self.roots()
        if len(roots) > 1:
            preferred = [f for f in roots if f.func_type in (FunctionType.Orchestration, FunctionType.Opaque)]
            roots = preferred or roots
        if len(roots) != 1:
            names = ", ".join(f.name for f in (roots or self.program.functions.values()))
            raise MachineError(f"cannot tell which function is the entry (candidates: {names}); name one "
                               f"with --entry / entry=")
        return roots[0]

    def entry_function(self, entry: str | None) -> Function:
        return self.default_entry() if entry is None else self.program_function(entry)

    # -- running ---------------------------------------------------------------------------------
    def run(self, entry: str | None = None, inputs: Mapping[str, Any] | Sequence[Any] = ()) -> Any:
        """Run the entry function on `inputs` (by parameter base name or by position).

        Arguments are passed as given (by reference): Out / InOut arrays are written in place.
        Returns whatever the entry function returns (None, a value or a tuple).
        """
        from pypto_core.interp.inputs import bind_arguments

        func = self.entry_function(entry)
        args = bind_arguments(func, inputs)
        self.budget = IterationBudget()
        self.onchip = OnChipMemory(self.backend_object())
        ctx = EvalContext(self, self.code_of(func), task=func.name)
        with np.errstate(all="ignore"), blas_threads(self.blas_threads):
            return self.call(ctx, func, args, None)

    def call(self, ctx: EvalContext, callee: Function, args: list[Any], call: E.Call | None) -> Any:
        code = self.code_of(callee)
        kind = callee.func_type
        if kind in CORE_KERNEL_TYPES and ctx.group is None:
            return self.launch_group(ctx, [(callee, args, call)])[0]
        if kind in _FORKING_TYPES and runs_on_lanes(callee) and ctx.lane_set is None and ctx.core != "aic":
            return self._fork_function(ctx, code, args)
        return code.invoke(ctx.derive(code), args)

    def launch_group(self, ctx: EvalContext, launches: Sequence[tuple[Function, list[Any], Any]]) -> list[Any]:
        """Run AIC / AIV functions together as one core group; each call's result (lane 0's)."""
        if ctx.group is not None:  # already inside a group: these are plain nested calls
            return [self.code_of(f).invoke(ctx.derive(self.code_of(f)), args) for f, args, _ in launches]
        lanes = max([self.shape.aiv_lanes if runs_on_lanes(f) else 1
                     for f, _, _ in launches if f.func_type is FunctionType.AIV] or [1])
        caller = ctx.code.func if ctx.code is not None else None
        name = caller.name if caller is not None and caller.func_type is FunctionType.Group else \
            " + ".join(f.name for f, _, _ in launches)
        group = CoreGroup(name, lanes, self.shape.fifo_depth)
        sched = Scheduler(f"core group '{name}'")
        first_task: list[int] = []
        for func, args, _ in launches:
            code = self.code_of(func)
            first_task.append(len(sched.tasks))
            if func.func_type is FunctionType.AIC:
                c = ctx.derive(code, core="aic", lane=0, lane_count=1, group=group, lane_set=None, sched=sched,
                               race=group.race, task=func.name)
                sched.add(c.task, partial(code.invoke, c, args))
                continue
            n = lanes if runs_on_lanes(func) else 1
            lane_set = LaneSet(n) if n > 1 else None
            for lane in range(n):
                c = ctx.derive(code, core="aiv", lane=lane, lane_count=n, group=group, lane_set=lane_set,
                               sched=sched, race=group.race, task=f"{func.name}[lane {lane}]")
                sched.add(c.task, partial(code.invoke, c, list(args)))
        results = sched.run()
        return [results[i] for i in first_task]

    def _fork_function(self, ctx: EvalContext, code: FunctionCode, args: list[Any]) -> Any:
        n = self.shape.aiv_lanes
        name = code.func.name
        what = f"the lanes of '{name}'"
        sched = Scheduler(what)
        lane_set = LaneSet(n)
        race = _lane_tracker(ctx, what)
        for lane in range(n):
            c = ctx.derive(code, core="lane", lane=lane, lane_count=n, lane_set=lane_set, sched=sched, race=race,
                           task=f"{name}[lane {lane}]")
            sched.add(c.task, partial(code.invoke, c, list(args)))
        return sched.run()[0]

    def fork_region(self, fr: list[Any], body: Any, lanes: int, kind: str) -> Any:
        """A `pl.split_aiv` region (or a CORE_GROUP scope holding one, `kind` says which): its body runs once
        per lane on a copy of the frame.

        Names defined in the region leak out with lane 0's values (tensors are shared anyway).
        """
        ctx: EvalContext = fr[0]
        if ctx.lane_set is not None or ctx.lane_count > 1:
            return body(fr)  # already on a lane: the region is this lane's work
        where = ctx.where()
        what = f"the {kind} of '{where}'"
        sched = Scheduler(what)
        lane_set = LaneSet(lanes)
        race = _lane_tracker(ctx, what)
        frames = []
        for lane in range(lanes):
            lane_frame = list(fr)
            c = ctx.derive(core="lane", lane=lane, lane_count=lanes, lane_set=lane_set, sched=sched, race=race,
                           task=f"{where}: {kind}[lane {lane}]")
            c.frame = lane_frame
            lane_frame[0] = c
            frames.append(lane_frame)
            sched.add(c.task, partial(body, lane_frame))
        signals = sched.run()
        fr[1:] = frames[0][1:]
        return signals[0]


def _lane_tracker(ctx: EvalContext, what: str) -> GmRaceTracker:
    """The race tracker of a fork's lanes: the core group's when forked inside one (the lanes inherit the
    task's happens-before, context.py), else a fresh one living as long as the fork."""
    return ctx.race if ctx.race is not None else GmRaceTracker(what)


class _Callees(IRVisitor):
    def __init__(self) -> None:
        self.names: set[str] = set()

    def visit_call(self, call: E.Call) -> None:
        if isinstance(call.op, E.GlobalVar):
            self.names.add(call.op.name)
        for a in call.args:
            self.visit_expr(a)


def _lane_functions(program: Program) -> set[str]:
    """The forking split_aiv functions and every function they call, transitively."""
    todo = [f for f in program.functions.values() if f.func_type in _FORKING_TYPES and runs_on_lanes(f)]
    seen: set[str] = set()
    while todo:
        func = todo.pop()
        if func.name in seen:
            continue
        seen.add(func.name)
        v = _Callees()
        v.visit_stmt(func.body)
        todo.extend(f for name in v.names if (f := program.get_function(name)) is not None)
    return seen


def _called_names(program: Program) -> set[str]:
    v = _Callees()
    for func in program.functions.values():
        v.visit_stmt(func.body)
    return v.names

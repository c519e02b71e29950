"""Cube ops of a forked split_aiv function run once, on lane 0, for every lane.

An InCore function marked split_aiv (LowerAutoVectorSplit's output, before ExpandMixedKernel) forks onto
the AIV lanes (Machine._fork_function), but its cube statements belong to the one cube core of the core
group: ExpandMixedKernel moves them to the AIC function, which runs them once. So the machine runs an op
call whose registry affinity is CUBE (pypto_core.analysis.affinity.classify_call_affinity) on lane 0 only:

* every lane meets at a barrier before it (program order: what any lane did before the op happens
  before it, e.g. a vector store the cube op's load reads);
* lane 0 runs the op (its context says core "cube" meanwhile, so that the cube ops among its operands run
  in place and the GM race check calls its accesses cube ones);
* every lane meets again and receives lane 0's result (a tile is a value; a tensor is shared anyway).

Both barriers are LaneSet.exchange calls, so both are happens-before edges (gm_race.py): a cube store
happens once, and a later vector load by any lane is ordered after it.

The wrapper is only compiled into call sites of functions that can run on a fork's lanes
(Machine.may_run_on_lanes); elsewhere it costs nothing, and there it costs one attribute test when the
function runs unforked.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pypto_core.analysis.affinity import classify_call_affinity
from pypto_core.ir import expr as E
from pypto_core.ops.opdef import CoreAffinity

if TYPE_CHECKING:
    from pypto_core.interp.code import FunctionCode

Closure = Callable[[list[Any]], Any]


def runs_once_on_lanes(code: FunctionCode, call: E.Call) -> bool:
    """Whether this call site must run once for every lane when its function runs forked."""
    return code.machine.may_run_on_lanes(code.func) and classify_call_affinity(call) is CoreAffinity.CUBE


def once_for_all_lanes(call: E.Call, run: Closure) -> Closure:
    """`run` (an op call's closure) wrapped to run on lane 0 only when the frame runs on a fork's lanes."""
    where = call.span.to_string() if hasattr(call.span, "to_string") else str(call.span)
    what = (f"{call.op.name} at {where}, a cube op the lanes of a split_aiv function run once on lane 0 "
            f"(the one cube core: every lane must reach it)")
    arrive, leave = object(), object()  # the two barriers' sites (LaneSet counts occurrences per site)

    def run_once(fr: list[Any]) -> Any:
        ctx = fr[0]
        lane_set = ctx.lane_set
        if ctx.core != "lane" or lane_set is None or ctx.lane_count == 1:
            return run(fr)
        lane_set.exchange(ctx, arrive, what, None)
        value = None
        if ctx.lane == 0:
            ctx.core = "cube"
            try:
                value = run(fr)
            finally:
                ctx.core = "lane"
        return lane_set.exchange(ctx, leave, what, value)[0]

    return run_once

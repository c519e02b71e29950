"""HardSyncallOccupancyValid (docs/architecture.md, the pass manager: produced by ExpandMixedKernel). A hard `system.syncall` is a
hardware barrier: it completes only when every core it names arrives, so each of them must reach it the
same number of times. After the expansion that means, for the AIC and AIV functions a Group launches:

* a `core_type="mix"` hard syncall (SHARED: copied to both sides) occurs as often in the AIC function as
  in the AIV one;
* a syncall stating a lane (`aic_only` -> CUBE, `aiv_only` -> VECTOR, registry affinity) sits in a
  function of that core;
* in an AIV function, no hard syncall is inside a loop or if that the lane index steers, directly or
  through a value computed from it (the other lane would not arrive as often); the lane-dependence engine
  (pypto_core/analysis/lane_dependence.py) answers which control flow that is.

PyPTO's documents do not describe this property; these are the occupancy rules a demanding user would expect of a hard
barrier. A soft syncall (`mode="soft"`, through a GM workspace) is not checked.
"""

from __future__ import annotations

from pypto_core.analysis.affinity import classify_call_affinity
from pypto_core.analysis.lane_dependence import lane_steered, scan
from pypto_core.ir import expr as E
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import FunctionType
from pypto_core.ir.function import Function, Program
from pypto_core.ir.visitor import IRVisitor
from pypto_core.ops.opdef import CoreAffinity
from pypto_core.ops.registry import opdef_of
from pypto_core.passes.verifier_registry import Diagnostic, error

RULE = "HardSyncallOccupancyValid"
_CORE_OF = {FunctionType.AIC: CoreAffinity.CUBE, FunctionType.AIV: CoreAffinity.VECTOR}


def _is_hard_syncall(call: E.Call) -> bool:
    """A syncall-like barrier: an op with a `mode` kwarg whose value is (or defaults to) 'hard'."""
    opdef = opdef_of(call)
    if opdef is None or opdef.kwarg_spec("mode") is None or opdef.lane_kwarg is None:
        return False
    return opdef.kwarg(call.kwargs, "mode") == "hard"


def hard_syncalls(func: Function) -> list[tuple[E.Call, S.Stmt | None]]:
    """Each hard syncall of a function with the innermost loop or if around it that the lane index steers
    (the lane-dependence engine: through any value computed from the index, not only the index itself)."""
    facts = scan(tuple(func.params), func.body)
    out: list[tuple[E.Call, S.Stmt | None]] = []
    for site in facts.calls:
        if not isinstance(site.call.op, E.GlobalVar) and _is_hard_syncall(site.call):
            steering = lane_steered(site)
            out.append((site.call, steering.stmt if steering is not None else None))
    return out


def lane_control(stmt: S.Stmt) -> str:
    if isinstance(stmt, S.ForStmt):
        return "inside a loop whose bounds read the lane index"
    if isinstance(stmt, S.WhileStmt):
        return "inside a while loop whose condition reads the lane index"
    return "under a condition on the lane index"


def verify_hard_syncall_occupancy(program: Program | Function) -> list[Diagnostic]:
    funcs = [program] if isinstance(program, Function) else list(program.functions.values())
    by_name = {f.name: f for f in funcs}
    found = {f.name: hard_syncalls(f) for f in funcs if f.func_type in _CORE_OF}
    out: list[Diagnostic] = []
    for name, calls in found.items():
        func = by_name[name]
        core = _CORE_OF[func.func_type]
        for call, steered_by in calls:
            a = classify_call_affinity(call)
            if a not in (core, CoreAffinity.SHARED):
                out.append(error(RULE, f"{func.func_type.name} function '{name}': a hard {call.op.name} for the "
                                       f"{a.name.lower()} core sits on the other core, which it never waits for",
                                 call.span))
            if steered_by is not None and func.func_type is FunctionType.AIV:
                out.append(error(RULE, f"AIV function '{name}': a hard {call.op.name} {lane_control(steered_by)}: "
                                       f"the other AIV lane does not arrive as often and the barrier never "
                                       f"completes; move it out of the lane-dependent loop or branch", call.span))
    for group in funcs:
        if group.func_type is not FunctionType.Group:
            continue
        launched = [by_name[n] for n in _launched(group) if n in by_name and n in found]
        aics = [f for f in launched if f.func_type is FunctionType.AIC]
        aivs = [f for f in launched if f.func_type is FunctionType.AIV]
        for aic, aiv in zip(aics, aivs):
            counts = [sum(1 for c, _ in found[f.name] if classify_call_affinity(c) is CoreAffinity.SHARED)
                      for f in (aic, aiv)]
            if counts[0] != counts[1]:
                out.append(error(RULE, f"Group '{group.name}': '{aic.name}' reaches {counts[0]} hard mix syncall(s) "
                                       f"but '{aiv.name}' {counts[1]}: a hard barrier over both cores needs both to "
                                       f"arrive each time", group.span))
    return out


def _launched(group: Function) -> list[str]:
    names: list[str] = []

    class Walk(IRVisitor):
        def visit_call(self, call: E.Call) -> None:
            if isinstance(call.op, E.GlobalVar):
                names.append(call.op.name)
            super().visit_call(call)

    Walk().visit_stmt(group.body)
    return names

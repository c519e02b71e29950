"""One InCore function through ExpandMixedKernel (docs/passes/expand_mixed_kernel.md, what it does).

* not mixed: it becomes an AIC (a CUBE rollup) or an AIV function; a pure-vector function that is not
  split_aiv drops its function-level split (docs/passes/lower_auto_vector_split.md, scope: it keeps its unsplit behaviour);
* mixed: `F_aic` (no return value) and `F_aiv` built from the same body, each keeping its own side's
  statements, with transfers, fences, tfrees and the pipe setup; the caller builds the Group.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pypto_core.analysis.affinity import classify_call_affinity
from pypto_core.analysis.region_lanes import body_calls
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import FunctionType, SplitMode
from pypto_core.ir.utils import deep_clone, flatten_to_stmts, make_body, substitute_stmt
from pypto_core.ir.visitor import IRVisitor
from pypto_core.ops.opdef import CoreAffinity
from pypto_core.ops.registry import opdef_of
from pypto_plugins.pass_split.mixed_kernel import pipe_setup
from pypto_plugins.pass_split.mixed_kernel.core_body import CoreBody, SplitPlan
from pypto_plugins.pass_split.mixed_kernel.cross_uses import check_no_cross_core_use
from pypto_plugins.pass_split.mixed_kernel.dce import remove_dead_code
from pypto_plugins.pass_split.mixed_kernel.fences import find_fences
from pypto_plugins.pass_split.mixed_kernel.loop_repair import fold_identity_carries
from pypto_plugins.pass_split.mixed_kernel.placement import ConsumedBody, consume_regions
from pypto_plugins.pass_split.mixed_kernel.sides import Side
from pypto_plugins.pass_split.mixed_kernel.tfree import place_tfrees
from pypto_plugins.pass_split.mixed_kernel.transfers import Boundary, boundary_of
from pypto_plugins.pass_split.split_axis.regions import check_transpose_hazard

PASS = "ExpandMixedKernel"
CLEANUP_ROUNDS = 64  # each round removes something; a body has far fewer statements nested this deep


@dataclass
class Expanded:
    aic: F.Function
    aiv: F.Function


def retyped_single_core(func: F.Function, affinity: CoreAffinity) -> F.Function:
    consumed = consume_regions(func)
    kind = FunctionType.AIC if affinity is CoreAffinity.CUBE else FunctionType.AIV
    attrs = dict(func.attrs)
    if kind is FunctionType.AIV and not attrs.get("split_aiv"):
        attrs.pop("split", None)  # a pure-vector pl.split function keeps its unsplit behaviour (docs/passes/lower_auto_vector_split.md)
    return F.Function(func.name, func.param_items(), func.return_types, consumed.body, func.span, kind,
                      attrs=attrs, requires_runtime_binding=func.requires_runtime_binding)


def _lane_ids(body: S.Stmt) -> frozenset[int]:
    ids: set[int] = set()

    class Walk(IRVisitor):
        def visit_assign_stmt(self, s: S.AssignStmt) -> None:
            value = s.value
            opdef = opdef_of(value) if isinstance(value, E.Call) and type(value.op) is E.Op else None
            if opdef is not None and opdef.traits.lane_index:
                ids.add(id(s.var))
            super().visit_assign_stmt(s)

    Walk().visit_stmt(body)
    return frozenset(ids)


class _Boundaries(IRVisitor):
    def __init__(self, where: str, lanes: frozenset[int]) -> None:
        self.where, self.lanes = where, lanes
        self.found: dict[int, Boundary] = {}

    def visit_assign_stmt(self, s: S.AssignStmt) -> None:
        b = boundary_of(s, self.where, self.lanes)
        if b is not None:
            self.found[id(s)] = b
        super().visit_assign_stmt(s)


def _check_function_split_hazard(func: F.Function, consumed: ConsumedBody) -> None:
    """The function-level split's transpose hazard, over the vector side's calls (docs/passes/lower_auto_vector_split.md)."""
    mode = func.split
    if mode is None or mode is SplitMode.NONE or consumed.region_modes:
        return
    vector = [c for c in body_calls(consumed.body) if classify_call_affinity(c) is CoreAffinity.VECTOR]
    check_transpose_hazard(vector, mode, f"{PASS}: InCore function '{func.name}' (function-level {mode.name} split)")


def cleaned(stmts: list[S.Stmt]) -> list[S.Stmt]:
    """Loop repair and dead code, repeated until nothing changes."""
    for _ in range(CLEANUP_ROUNDS):
        stmts, folded = fold_identity_carries(stmts)
        stmts, removed = remove_dead_code(stmts)
        if not folded and not removed:
            return stmts
    return stmts


def expand_mixed(func: F.Function, backend: Any) -> Expanded:
    consumed = consume_regions(func)
    _check_function_split_hazard(func, consumed)
    where = f"{PASS}: InCore function '{func.name}'"
    finder = _Boundaries(where, _lane_ids(consumed.body))
    finder.visit_stmt(consumed.body)
    fresh = consumed.fresh
    after, before = find_fences(consumed.body, fresh)
    plan = SplitPlan(consumed.placement, finder.found, after, before, backend, fresh)
    bodies: dict[Side, list[S.Stmt]] = {}
    for side in (Side.AIC, Side.AIV):
        builder = CoreBody(side, plan)
        stmts = builder.block(consumed.body)
        stmts = flatten_to_stmts(substitute_stmt(make_body(stmts, func.body.span), builder.substitution()))
        stmts = cleaned(stmts)
        check_no_cross_core_use(func.name, side, stmts, builder.foreign)
        bodies[side] = place_tfrees(func.name, stmts)
    use = pipe_setup.pipe_use(func.name, bodies[Side.AIC], bodies[Side.AIV])
    if use.directions:
        slot_num = int(func.attrs.get("slot_num") or pipe_setup.DEFAULT_SLOT_NUM)
        for side in (Side.AIC, Side.AIV):
            setup = pipe_setup.setup_stmts(side, func.name, use, slot_num, fresh)
            bodies[side] = pipe_setup.with_setup(side, bodies[side], setup)
    aiv_attrs = dict(func.attrs)
    if (backend.requires_no_split_dual_aiv_dispatch and func.split is None and not func.attrs.get("split_aiv")):
        aiv_attrs["dual_aiv_dispatch"] = True  # docs/passes/split_vector_kernel.md: both AIV lanes run the unsplit kernel
    span = func.span
    aic = F.Function(f"{func.name}_aic", func.param_items(), [], make_body(bodies[Side.AIC], span), span,
                     FunctionType.AIC, attrs=func.attrs)
    aiv = F.Function(f"{func.name}_aiv", func.param_items(), func.return_types, make_body(bodies[Side.AIV], span),
                     span, FunctionType.AIV, attrs=aiv_attrs)
    # Each function gets its own variables: a Var belongs to one function (structural equality maps them).
    return Expanded(deep_clone(aic), deep_clone(aiv))

"""Region consumption (docs/passes/expand_mixed_kernel.md, regions): each `pl.split_aiv` wrapper is erased once
and the statements it held are placed through a pass-local map, never serialised into the IR.

| what the region holds                               | placed on      |
| --------------------------------------------------- | -------------- |
| a no-duplicate op (notify)                          | AIV only       |
| a stated lane (fixed registry affinity, core_type)  | that lane      |
| VECTOR work, SHARED work without a stated lane      | AIV only       |
| a MIXED boundary (aiv_shard / aic_gather)           | both ends      |

CUBE work inside a region was already rejected (AivSplitLoweredValid). Before a region is erased its
mode is checked for the transpose hazard (docs/passes/lower_auto_vector_split.md, transpose hazard).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pypto_core.analysis.affinity import classify_call_affinity, stated_lane
from pypto_core.analysis.region_lanes import body_calls
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import SplitMode
from pypto_core.ir.fresh_names import FreshNames
from pypto_core.ir.utils import flatten_to_stmts, make_body
from pypto_core.ops.opdef import CoreAffinity
from pypto_core.ops.registry import opdef_of
from pypto_plugins.pass_split.mixed_kernel.hoist import Hoister
from pypto_plugins.pass_split.mixed_kernel.sides import AIC_ONLY, AIV_ONLY, BOTH, Sides, sides_of
from pypto_plugins.pass_split.split_axis.regions import check_transpose_hazard

PASS = "ExpandMixedKernel"


@dataclass
class ConsumedBody:
    body: S.Stmt
    fresh: FreshNames
    placement: dict[int, Sides] = field(default_factory=dict)  # id(statement) -> its sides
    region_modes: list[SplitMode] = field(default_factory=list)


def region_sides(s: S.AssignStmt | S.EvalStmt) -> Sides | None:
    """Where a statement written inside a region runs; None for a boundary (both ends, rewritten)."""
    value = s.value if isinstance(s, S.AssignStmt) else s.expr
    if not (isinstance(value, E.Call) and type(value.op) is E.Op):
        return AIV_ONLY  # scalar code and function calls of a region are AIV work
    opdef = opdef_of(value)
    if opdef is not None and opdef.no_duplicate:
        return AIV_ONLY
    affinity = classify_call_affinity(value)
    if affinity is CoreAffinity.MIXED:
        return None
    lane = stated_lane(value)
    if lane is not None:
        return sides_of(lane)
    return AIC_ONLY if affinity is CoreAffinity.CUBE else AIV_ONLY


def statement_sides(s: S.AssignStmt | S.EvalStmt) -> Sides | None:
    """Where a statement outside every region runs, by its call's affinity; None for a boundary."""
    value = s.value if isinstance(s, S.AssignStmt) else s.expr
    if not (isinstance(value, E.Call) and type(value.op) is E.Op):
        return BOTH  # scalar code, copies, function calls: SHARED
    return sides_of(classify_call_affinity(value))


class _Consumer:
    def __init__(self, func: F.Function) -> None:
        self.func = func
        self.out = ConsumedBody(func.body, FreshNames(func))
        self.hoister = Hoister(self.out.fresh)

    def block(self, stmt: S.Stmt, in_region: bool) -> list[S.Stmt]:
        out: list[S.Stmt] = []
        for s in flatten_to_stmts(stmt):
            out.extend(self.stmt(s, in_region))
        return out

    def stmt(self, s: S.Stmt, in_region: bool) -> list[S.Stmt]:
        if isinstance(s, S.SplitAivScopeStmt):
            mode = SplitMode(int(s.split))
            self.out.region_modes.append(mode)
            check_transpose_hazard(body_calls(s.body), mode,
                                   f"{PASS}: InCore function '{self.func.name}', pl.split_aiv region ({mode.name})")
            return self.block(s.body, True)  # the wrapper is erased once; its statements stay in place
        if isinstance(s, (S.AssignStmt, S.EvalStmt)):
            out = self.hoister.stmt(s, region_sides(s) if in_region else statement_sides(s))
            if in_region:
                for x in out:
                    sides = region_sides(x)  # type: ignore[arg-type]
                    if sides is not None:
                        self.out.placement[id(x)] = sides
            return out
        if isinstance(s, (S.ForStmt, S.WhileStmt)):
            return [s.with_fields(body=make_body(self.block(s.body, in_region), s.body.span))]
        if isinstance(s, S.IfStmt):
            then_body = make_body(self.block(s.then_body, in_region), s.then_body.span)
            else_body = None if s.else_body is None else make_body(self.block(s.else_body, in_region),
                                                                   s.else_body.span)
            return [s.with_fields(then_body=then_body, else_body=else_body)]
        if isinstance(s, S.ScopeStmt):
            return [s.with_fields(body=make_body(self.block(s.body, in_region), s.body.span))]
        if isinstance(s, (S.ReturnStmt, S.YieldStmt)):
            return self.returned_calls(s, in_region)
        return [s]

    def returned_calls(self, s: S.ReturnStmt | S.YieldStmt, in_region: bool) -> list[S.Stmt]:
        """A return or yield of an op call (`return pl.store(d, [0, 0], out)`) has the call computed first into a
        temporary and returns that, as PyPTO's FlattenCallExpr does before any split (docs/passes/expand_mixed_kernel.md,
        placement): the call is then placed by its own affinity (a cube store on the AIC) while the return, which
        each side keeps, reads a variable."""
        pre: list[S.Stmt] = []
        values = []
        for value in s.value:
            if isinstance(value, E.Call) and type(value.op) is E.Op:
                temp = E.Var(self.out.fresh("t_tmp"), value.type, value.span)
                pre.extend(self.stmt(S.AssignStmt(temp, value, value.span), in_region))
                value = temp
            values.append(value)
        return pre + [s.with_fields(value=tuple(values))] if pre else [s]


def consume_regions(func: F.Function) -> ConsumedBody:
    consumer = _Consumer(func)
    stmts = consumer.block(func.body, False)
    consumer.out.body = make_body(stmts, func.body.span)
    return consumer.out

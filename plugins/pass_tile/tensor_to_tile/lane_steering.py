"""A region boundary under control flow steered by the lane index is refused (fuzz finding c30c/006).

`pl.aic_gather` hands the lanes' values to the cube and `pl.aiv_shard` hands the cube's value to the lanes
(registry trait `split_boundary`); the cube is one core for both lanes, so it meets each boundary once per
execution that every lane makes together. In a `pl.SplitMode.NONE` region a loop or if may distribute the
work over the lanes by their index (`pl.range(aiv_id, n, 2)`); a boundary inside such a loop or if would
have the cube follow one lane's iterations only (on chip, the other lane's data never reaches the cube
or GM). The lane-dependent values are the results of the registry's `lane_index` ops and everything
computed from them (loop variables whose bounds read one, assignments that read one).
"""

from __future__ import annotations

from pypto_core.errors import UserError
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.fresh_names import user_base
from pypto_core.ir.utils import free_vars_in_order
from pypto_core.ir.visitor import IRVisitor
from pypto_core.ops.registry import opdef_of


class _LaneSteeredBoundaries(IRVisitor):
    def __init__(self, func: F.Function, pass_name: str) -> None:
        self.func = func
        self.pass_name = pass_name
        self.lane: dict[int, E.Var] = {}  # id -> the lane-dependent variable
        self.steering: list[tuple[str, E.Var]] = []  # enclosing lane-steered loops / ifs: (kind, lane var)

    def _lane_var(self, *exprs: E.Expr | None) -> E.Var | None:
        for v in free_vars_in_order([e for e in exprs if e is not None]):
            if id(v) in self.lane:
                return self.lane[id(v)]
        return None

    def _reads_lane_index(self, e: E.Expr) -> bool:
        finder = _LaneIndexCalls()
        finder.visit_expr(e)
        return finder.found

    def visit_assign_stmt(self, s: S.AssignStmt) -> None:
        self.visit_expr(s.value)
        if self._reads_lane_index(s.value) or self._lane_var(s.value) is not None:
            self.lane[id(s.var)] = s.var

    def _steered(self, kind: str, lane: E.Var | None, body: S.Stmt | None) -> None:
        if body is None:
            return
        if lane is not None:
            self.steering.append((kind, lane))
        self.visit_stmt(body)
        if lane is not None:
            self.steering.pop()

    def visit_for_stmt(self, s: S.ForStmt) -> None:
        for e in (s.start, s.stop, s.step):
            self.visit_expr(e)
        lane = self._lane_var(s.start, s.stop, s.step)
        if lane is not None:
            self.lane[id(s.loop_var)] = s.loop_var
        self._steered("loop whose bounds read", lane, s.body)

    def visit_while_stmt(self, s: S.WhileStmt) -> None:
        self.visit_expr(s.condition)
        self._steered("while loop whose condition reads", self._lane_var(s.condition), s.body)

    def visit_if_stmt(self, s: S.IfStmt) -> None:
        self.visit_expr(s.condition)
        lane = self._lane_var(s.condition)
        self._steered("if whose condition reads", lane, s.then_body)
        self._steered("if whose condition reads", lane, s.else_body)

    def visit_call(self, call: E.Call) -> None:
        super().visit_call(call)
        opdef = opdef_of(call)
        if not self.steering or opdef is None or opdef.traits.split_boundary is None:
            return
        kind, lane = self.steering[-1]
        to = "the cube" if opdef.traits.split_boundary == "v2c" else "the lanes"
        raise UserError(f"{self.pass_name}: in InCore function '{self.func.name}', {call.op.name} hands a value to "
                        f"{to} inside a {kind} the "
                        f"lane index (through '{user_base(lane)}'): the cube is one core for both lanes and "
                        f"meets the boundary once per execution the lanes make together, so it would follow "
                        f"only one lane's iterations; move the boundary out of the lane-steered loop or if "
                        f"(distribute the work over the lanes after the gather / before the shard), or keep "
                        f"this work on the vector lanes without the boundary", call.span)


class _LaneIndexCalls(IRVisitor):
    def __init__(self) -> None:
        self.found = False

    def visit_call(self, call: E.Call) -> None:
        opdef = opdef_of(call)
        if opdef is not None and opdef.traits.lane_index:
            self.found = True
            return
        super().visit_call(call)


def check_lane_steered_boundaries(func: F.Function, pass_name: str) -> None:
    """A located UserError for a split boundary under a loop or if steered by the lane index."""
    _LaneSteeredBoundaries(func, pass_name).visit_stmt(func.body)

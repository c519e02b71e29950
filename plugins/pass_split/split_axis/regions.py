"""Facts about `pl.split_aiv` regions the split passes share: a region's lane variable, whether its body
is already per-lane, and the transpose hazard (docs/passes/lower_auto_vector_split.md)."""

from __future__ import annotations

from pypto_core.analysis.walk import op_calls
from pypto_core.errors import UserError
from pypto_core.ir import expr as E
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import SplitMode
from pypto_core.ir.types import ScalarType
from pypto_core.ir.utils import flatten_to_stmts
from pypto_core.ir.visitor import IRVisitor
from pypto_core.ops.build import static_int
from pypto_core.ops.registry import opdef_of
from pypto_plugins.pass_split.split_axis.modes import split_dimension


def lane_var(region: S.SplitAivScopeStmt) -> E.Var | None:
    """The region's `aiv_id`: the variable its first statement binds to the lane index, if it does."""
    stmts = flatten_to_stmts(region.body)
    if stmts and isinstance(stmts[0], S.AssignStmt) and isinstance(stmts[0].value, E.Call):
        opdef = opdef_of(stmts[0].value)
        if opdef is not None and opdef.traits.lane_index:
            return stmts[0].var
    return None


class _Uses(IRVisitor):
    def __init__(self, vars_: frozenset[int]) -> None:
        self.vars = vars_
        self.found = False

    def visit_var_like(self, var: E.Var) -> None:
        self.found = self.found or id(var) in self.vars


def mentions(expr: E.Expr, lanes: frozenset[int]) -> bool:
    if not lanes:
        return False
    walker = _Uses(lanes)
    walker.visit_expr(expr)
    return walker.found


def lane_values(region: S.SplitAivScopeStmt) -> frozenset[int]:
    """The region's `aiv_id` and the scalars computed from it (`base = aiv_id * 64`), by variable id."""
    lane = lane_var(region)
    if lane is None:
        return frozenset()
    found = {id(lane)}

    class Walk(IRVisitor):
        def visit_assign_stmt(self, s: S.AssignStmt) -> None:
            if isinstance(s.var.type, ScalarType) and mentions(s.value, frozenset(found)):
                found.add(id(s.var))
            super().visit_assign_stmt(s)

    Walk().visit_stmt(region.body)
    return frozenset(found)


def lane_addressed(call: E.Call, lanes: frozenset[int]) -> bool:
    """An address-carrying op whose read address uses the lane index (or a scalar derived from it): the
    author placed it per lane (docs/passes/lower_auto_vector_split.md: only the read offsets count, not a shape, a valid shape or a
    destination slot)."""
    opdef = opdef_of(call)
    if opdef is None or not lanes:
        return False
    return any(i < len(call.args) and mentions(call.args[i], lanes) for i in opdef.traits.read_address_args)


def body_calls(body: S.Stmt) -> list[E.Call]:
    """The op calls of a region's body, not those of a scope nested in it (not this region's body)."""
    return op_calls(flatten_to_stmts(body), stop_at=(S.ScopeStmt,))


def has_explicit_lanes(region: S.SplitAivScopeStmt) -> bool:
    """The body is already per lane: a boundary op (aiv_shard / aic_gather) or a lane-addressed read."""
    lanes = lane_values(region)
    for call in body_calls(region.body):
        opdef = opdef_of(call)
        if opdef is not None and (opdef.traits.split_boundary is not None or lane_addressed(call, lanes)):
            return True
    return False


def check_transpose_hazard(calls: list[E.Call], mode: SplitMode, where: str) -> None:
    """A transpose that swaps the split axis would move each lane's half onto the other axis (docs/passes/lower_auto_vector_split.md,
    FindTransposeSplitHazard): a located error naming the op and the mode."""
    if mode is SplitMode.NONE:
        return
    dim = split_dimension(mode)
    for call in calls:
        opdef = opdef_of(call)
        if opdef is None or not opdef.traits.swapped_axes_args:
            continue
        t = call.args[0].type
        rank = len(getattr(t, "shape", ())) or 2
        axes = {(static_int(call.args[i]) or 0) % rank for i in opdef.traits.swapped_axes_args if i < len(call.args)}
        if dim in axes:
            raise UserError(f"{where}: {call.op.name} swaps the split axis (dim {dim} of the {mode.name} split) with "
                            f"another axis, so each AIV lane's half would land on the wrong axis; transpose outside "
                            f"the split (on the cube side, or before the boundary), or split along the other axis",
                            call.span)

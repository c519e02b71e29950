"""Regions written per lane (seed 003, "数据并行 · 显式边界体", "显式边界区域内允许出现哪些算子",
"跨边界的部分有效操作数"): checked, their boundaries localised, their body otherwise passed through.

`check_per_lane_body` is ValidateMixedExplicitRegion with AnalyzeSplitBody's carry rules: a forward scan
in program order marks the per-lane values. Accepted vector ops: one that (transitively) consumes a
per-lane value; a pure generator (for itself only: it does not endorse its consumers); an
address-carrying op whose read address uses the region's `aiv_id` (its result is per lane). tile.create
and other SHARED calls are never reported. Loops carry the fact of their init (a neutral carry stays
neutral even when the body yields a per-lane value into it); a per-lane carry must get a per-lane value
back. An if merge is per lane only when both branches are. Carry mismatches are reported first, then
every remaining full-width vector op, in one error.

`LocalizeBoundaries` gives each aiv_shard its lane's valid extent (the type rule can only ceil-halve it):
a static ragged extent becomes `min(max(V, aiv_id*S) - aiv_id*S, S)` and flows into the consumers
that keep the valid region; a runtime extent stays the full box on the shard and its first consumer
carries the lane's extent. A consumer that changes the logical rectangle (a reduction, a slice) of a
ragged shard is rejected; a store of a lane that may be empty is guarded.
"""

from __future__ import annotations

from collections.abc import Sequence

from pypto_core.errors import UserError
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import SplitMode
from pypto_core.ir.rewriting import BodyRewriter, trailing_yield
from pypto_core.ir.types import TileType, dims_equal
from pypto_core.ir.utils import flatten_to_stmts
from pypto_core.ir.visitor import IRVisitor
from pypto_core.ops.affinity import classify_call_affinity
from pypto_core.ops.build import same_dim, static_int
from pypto_core.ops.opdef import CoreAffinity
from pypto_core.ops.registry import opdef_of
from pypto_plugins.pass_split.split_axis.facts import Split, SplitFacts
from pypto_plugins.pass_split.split_axis.lanes import LanePartition, lane_one_may_be_empty
from pypto_plugins.pass_split.split_axis.modes import split_dimension
from pypto_plugins.pass_split.split_axis.regions import lane_addressed, lane_values
from pypto_plugins.pass_split.split_axis.splitter import PASS, guard_empty_lane


class _PerLaneScan:
    def __init__(self, lanes: frozenset[int]) -> None:
        self.lanes = lanes
        self.per_lane: set[int] = set()
        self.full_width: list[tuple[str, E.Call]] = []
        self.carry_mismatches: list[str] = []

    def is_per_lane(self, e: E.Expr) -> bool:
        if id(e) in self.per_lane:
            return True
        if isinstance(e, E.TupleGetItemExpr):
            return self.is_per_lane(e.tuple)
        return False

    def call(self, call: E.Call) -> bool:
        """Whether the call's result is per lane; records a full-width vector op."""
        operands = [self.expr(a) for a in call.args]
        opdef = opdef_of(call)
        if opdef is None:
            return False
        if opdef.traits.split_boundary == "c2v":
            return True
        if opdef.traits.split_boundary == "v2c":
            return False  # the gathered tile is the cube's, whole
        if any(operands) or lane_addressed(call, self.lanes):
            return True
        affinity = classify_call_affinity(call)
        if affinity is CoreAffinity.VECTOR and not opdef.traits.pure_generator and not opdef.traits.lane_index:
            self.full_width.append((call.op.name, call))
        return False

    def expr(self, e: E.Expr) -> bool:
        if isinstance(e, E.Call):
            lane = self.call(e)
        elif isinstance(e, E.MakeTuple):
            lane = any([self.expr(x) for x in e.elements])
        else:
            lane = self.is_per_lane(e)
        if lane:
            self.per_lane.add(id(e))
        return lane

    def body(self, stmt: S.Stmt | None) -> None:
        for s in flatten_to_stmts(stmt):
            self.stmt(s)

    def stmt(self, s: S.Stmt) -> None:
        if isinstance(s, S.AssignStmt):
            if self.expr(s.value):
                self.per_lane.add(id(s.var))
        elif isinstance(s, S.EvalStmt):
            self.expr(s.expr)
        elif isinstance(s, (S.ReturnStmt, S.YieldStmt)):
            for v in s.value:
                self.expr(v)
        elif isinstance(s, (S.ForStmt, S.WhileStmt)):
            self.loop(s)
        elif isinstance(s, S.IfStmt):
            self.expr(s.condition)
            self.body(s.then_body)
            self.body(s.else_body)
            branches = [trailing_yield(b) for b in (s.then_body, s.else_body)]
            for i, rv in enumerate(s.return_vars):
                if all(y is not None and i < len(y.value) and self.is_per_lane(y.value[i]) for y in branches):
                    self.per_lane.add(id(rv))

    def loop(self, s: S.ForStmt | S.WhileStmt) -> None:
        for ia in s.iter_args:
            if self.expr(ia.initValue):
                self.per_lane.add(id(ia))
        self.body(s.body)
        last = trailing_yield(s.body)
        for i, ia in enumerate(s.iter_args):
            carried = id(ia) in self.per_lane
            yielded = last is not None and i < len(last.value) and self.is_per_lane(last.value[i])
            if carried and not yielded:
                self.carry_mismatches.append(ia.name_hint)
            if carried and i < len(s.return_vars):
                self.per_lane.add(id(s.return_vars[i]))


def check_per_lane_body(region: S.SplitAivScopeStmt, func: F.Function) -> None:
    scan = _PerLaneScan(lane_values(region))
    scan.body(region.body)
    where = f"InCore function '{func.name}'"
    if scan.carry_mismatches:
        names = ", ".join(f"'{n}'" for n in scan.carry_mismatches)
        raise UserError(f"{PASS}: {where}: the loop carries {names} start per lane in this pl.split_aiv region but "
                        f"the loop yields a full-width value back into them, so the per-lane fact is lost on the "
                        f"back edge; yield the per-lane value (computed from the shard or a lane-addressed load)",
                        region.span)
    if scan.full_width:
        names = ", ".join(dict.fromkeys(name for name, _ in scan.full_width))
        first = scan.full_width[0][1]
        raise UserError(f"{PASS}: {where}: this pl.split_aiv region mixes explicit per-lane work (pl.aiv_shard, "
                        f"loads addressed by the region's aiv_id) with full-width vector ops: {names}. Their body "
                        f"is passed through as written, so both AIV lanes would compute the same whole tile: feed "
                        f"them per-lane operands (the shard's result, or loads and slices whose offsets use "
                        f"aiv_id), or move them to a pl.split_aiv(2, mode=pl.SplitMode.NONE) region", first.span)


class LocalizeBoundaries(BodyRewriter):
    """Each aiv_shard of a data-parallel region carries its lane's valid extent."""

    def __init__(self, func: F.Function, region: S.SplitAivScopeStmt, lane: E.Var, fresh: object) -> None:
        super().__init__(func)
        self.fresh = fresh  # type: ignore[assignment]
        self.dim = split_dimension(SplitMode(int(region.split)))
        self.partition = LanePartition(lane)
        self.facts = SplitFacts()
        self.pending_extent: dict[int, E.Expr] = {}  # a runtime-extent shard -> the lane extent its consumer takes

    def rewrite_call(self, call: E.Call, args: list[E.Expr], result: E.Var | None) -> E.Expr:
        if call.span is not None and call.span.is_valid():
            self.span = call.span
        opdef = opdef_of(call)
        if opdef is not None and opdef.traits.split_boundary == "c2v":
            return self._shard(call, args)
        changed = [i for i, (a, b) in enumerate(zip(args, call.args)) if a is not b]
        if not changed:
            return call
        return self._consumer(call, args, changed)

    def _shard(self, call: E.Call, args: list[E.Expr]) -> E.Expr:
        t, src = call.type, args[0].type
        if not isinstance(t, TileType) or not isinstance(src, TileType) or len(t.shape) != 2:
            return call
        v, box = src.valid_shape[self.dim], src.shape[self.dim]
        if same_dim(v, box) and static_int(box) is not None and static_int(box) % 2 == 0:
            return call  # a full, even axis: the type rule's half is every lane's extent
        valid = list(t.valid_shape)
        lane_extent = self.partition.lane_valid(v, box)
        if static_int(v) is None:
            # A runtime extent: the pop moves the whole box, the first consumer narrows (seed 003).
            valid[self.dim] = t.shape[self.dim]
        else:
            valid[self.dim] = lane_extent
        view = (t.tile_view or t.effective_view()).with_fields(valid_shape=tuple(valid))
        new = call.with_fields(type=TileType(t.shape, t.dtype, t.memref, view, t.memory_space))
        if static_int(v) is None:
            self.pending_extent[id(new)] = lane_extent
        self.facts.record(new, Split(self.dim, may_be_empty=lane_one_may_be_empty(lane_extent)))
        return new

    def _consumer(self, call: E.Call, args: list[E.Expr], changed: Sequence[int]) -> E.Expr:
        """A consumer of a localised shard keeps the lane's extent when it keeps the valid region."""
        t = call.type
        source = args[changed[0]]
        old = call.args[changed[0]].type
        new_src = source.type
        if not isinstance(t, TileType) or not isinstance(old, TileType) or not isinstance(new_src, TileType):
            return call.with_fields(args=tuple(args))
        keeps = dims_equal(t.shape, old.shape) and same_dim(t.valid_shape[self.dim], old.valid_shape[self.dim])
        if not keeps:
            raise UserError(f"{PASS}: {call.op.name} changes the logical rectangle of the ragged shard "
                            f"'{getattr(call.args[changed[0]], 'name_hint', '?')}' whose valid extent differs per "
                            f"lane: its result cannot carry each lane's extent; pad the boundary tile to a valid "
                            f"extent both lanes share, or apply {call.op.name} on the cube side", call.span)
        extent = self.pending_extent.pop(id(source), None)
        valid = list(t.valid_shape)
        valid[self.dim] = extent if extent is not None else new_src.valid_shape[self.dim]
        view = (t.tile_view or t.effective_view()).with_fields(valid_shape=tuple(valid))
        new = E.Call(call.op, args, kwargs=dict(call.kwargs), attrs=dict(call.attrs),
                     type=TileType(t.shape, t.dtype, t.memref, view, t.memory_space), span=call.span)
        split = self.facts.of(source)
        if split is not None:
            self.facts.record(new, Split(self.dim, may_be_empty=lane_one_may_be_empty(valid[self.dim])))
        return new

    def stmt(self, s: S.Stmt) -> list[S.Stmt]:
        out = super().stmt(s)
        if isinstance(s, S.AssignStmt) and out and isinstance(out[-1], S.AssignStmt):
            new = out[-1]
            self.facts.record(new.var, self.facts.of(new.value))
            guarded = guard_empty_lane(new, self.facts, self.fresh)  # type: ignore[arg-type]
            if guarded is not None:
                out[-1] = guarded
        return out


class _Scopes(IRVisitor):
    def __init__(self) -> None:
        self.found: list[S.ScopeStmt] = []

    def visit_scope_stmt(self, s: S.ScopeStmt) -> None:
        self.found.append(s)
        super().visit_scope_stmt(s)


def scopes_inside(body: S.Stmt) -> list[S.ScopeStmt]:
    walker = _Scopes()
    walker.visit_stmt(body)
    return walker.found

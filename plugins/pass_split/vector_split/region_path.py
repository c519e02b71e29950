"""LowerAutoVectorSplit's region path (docs/passes/lower_auto_vector_split.md, the region path): each `pl.split_aiv` region
of an InCore function is lowered in place, its wrapper kept, and the function is marked `split_aiv`.

The walk recurses through loops, ifs and statement blocks but never into another scope; statements
outside every region stay as written. Per region mode and body:
* NONE (task parallel): passed through untouched;
* UP_DOWN / LEFT_RIGHT with a body already written per lane (a boundary op, or reads addressed by the
  region's `aiv_id`; explicit_regions.py): checked, the boundaries' valid extents localised;
* UP_DOWN / LEFT_RIGHT with full-width vector work: halved by the split-axis machinery with a
  `subblock_idx` of the region's own (sibling regions get distinct names), after the transpose-hazard
  check. The compiler-materialised loads ConvertTensorToTileOps placed before the region are loaded
  again per lane inside it, and the stores of the region's results placed after it move to its end,
  so that no halved value leaks out of the region.
A value a full-width region halved that a later full-width region uses is carried as the halved value:
each lane consumes its own half. The later region must split the same way (same mode, and the region
path always uses the box partition: docs/passes/lower_auto_vector_split.md, the region path); a region of another mode,
a region written per lane (its body, passed through, was written for the whole value), or a use outside
every region, is an error naming the value and both places.
A region left behind another scope, and a scope inside a region, are errors (the rescan).

A body already per lane is my reading of the per-lane form (docs/passes/lower_auto_vector_split.md, the region path): a region whose reads are addressed
by `aiv_id` (docs/dsl.md, splitting vector work) is the author's per-lane code, and halving it again would split it twice.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from pypto_core.analysis.affinity import is_gm_transfer
from pypto_core.analysis.region_lanes import body_calls, has_explicit_lanes, lane_values, lane_var, mentions
from pypto_core.errors import UserError
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import SplitMode
from pypto_core.ir.fresh_names import FreshNames, user_base
from pypto_core.ir.types import ScalarType, TileType
from pypto_core.ir.utils import (
    collect_def_vars,
    flatten_to_stmts,
    free_vars_in_order,
    make_body,
    substitute_stmt,
)
from pypto_core.ir.visitor import IRVisitor
from pypto_core.ops.registry import create_op_call
from pypto_plugins.pass_split.split_axis.facts import Split
from pypto_plugins.pass_split.split_axis.lanes import LanePartition
from pypto_plugins.pass_split.split_axis.modes import split_dimension
from pypto_plugins.pass_split.split_axis.regions import check_transpose_hazard
from pypto_plugins.pass_split.split_axis.retyped_uses import retyped_uses
from pypto_plugins.pass_split.split_axis.splitter import PASS, Splitter, check_no_cube_tile_halved
from pypto_plugins.pass_split.vector_split.explicit_regions import (
    LocalizeBoundaries,
    check_per_lane_body,
    scopes_inside,
)


def _loads(body: S.Stmt) -> dict[int, S.AssignStmt]:
    """Every `v = <load>` of the function: a GM transfer that makes a tile."""
    out: dict[int, S.AssignStmt] = {}

    class Walk(IRVisitor):
        def visit_assign_stmt(self, s: S.AssignStmt) -> None:
            if is_gm_transfer(s.value) and isinstance(s.var.type, TileType):
                out[id(s.var)] = s
            super().visit_assign_stmt(s)

    Walk().visit_stmt(body)
    return out


@dataclass(frozen=True, eq=False)  # Vars compare by identity (`==` on an Expr builds an Eq node)
class HalvedValue:
    """A value a full-width region halved: later regions of the same split use `half` in its place."""

    original: E.Var  # the full-width variable the source binds (and later statements still name)
    half: E.Var  # the lane's half the region binds instead
    split: Split
    region: S.SplitAivScopeStmt
    mode: SplitMode
    balanced_stride: int | None  # the partition: None, the box partition (the region path's only one)


def _line(region: S.Stmt) -> str:
    return f"line {region.span.begin_line}" if region.span is not None and region.span.is_valid() else "?"


class RegionLowering:
    def __init__(self, func: F.Function) -> None:
        self.func = func
        self.fresh = FreshNames(func)
        self.loads = _loads(func.body)
        self.halved: dict[int, HalvedValue] = {}  # by the original variable's id

    # -- the walk -------------------------------------------------------------------------------
    def block(self, stmt: S.Stmt) -> S.Stmt:
        original = flatten_to_stmts(stmt)
        stmts = list(original)
        out: list[S.Stmt] = []
        i = 0
        while i < len(stmts):
            s = stmts[i]
            if isinstance(s, S.SplitAivScopeStmt):
                region, rest = self.region(s, stmts[i + 1:])
                out.append(region)
                stmts = stmts[:i + 1] + rest
            elif isinstance(s, (S.ForStmt, S.WhileStmt)):
                self._check_no_half_outside(s, [ia.initValue for ia in s.iter_args])
                body = self.block(s.body)
                out.append(s if body is s.body else s.with_fields(body=body))  # type: ignore[arg-type]
            elif isinstance(s, S.IfStmt):
                self._check_no_half_outside(s, [s.condition])
                then_body = self.block(s.then_body)
                else_body = self.block(s.else_body) if s.else_body is not None else None
                same = then_body is s.then_body and else_body is s.else_body
                out.append(s if same else s.with_fields(then_body=then_body, else_body=else_body))  # type: ignore[arg-type]
            else:
                self._check_no_half_outside(s)
                out.append(s)  # outside every region: full width, as written; other scopes are not entered
            i += 1
        if len(out) == len(original) and all(a is b for a, b in zip(out, original)):
            return stmt
        return make_body(out, stmt.span)

    def region(self, region: S.SplitAivScopeStmt, following: list[S.Stmt]) -> tuple[S.Stmt, list[S.Stmt]]:
        mode = SplitMode(int(region.split))
        explicit = mode is not SplitMode.NONE and has_explicit_lanes(region)
        region, halves = self._carry_halves_in(region, mode, explicit)
        if mode is SplitMode.NONE:
            return region, following
        lane = lane_var(region)
        if explicit:
            check_per_lane_body(region, self.func)
            if lane is None:
                return region, following
            localize = LocalizeBoundaries(self.func, region, lane, self.fresh)
            body = localize.body(region.body)
            # A value the region retyped (an exactly typed gather) is named by its new variable after the region.
            return region.with_fields(body=body), retyped_uses(self.func, localize.subst, following)
        self._check_no_lane_placement(region, mode)
        check_transpose_hazard(body_calls(region.body), mode, f"{PASS}: InCore function '{self.func.name}'")
        region, following = self._take_stores(region, following)
        region = self._reload_inputs(region)
        return self._halve(region, mode, lane, halves), following

    def _check_no_lane_placement(self, region: S.SplitAivScopeStmt, mode: SplitMode) -> None:
        """A full-width region whose lane index places something (a store's destination, a shape) other than
        a read: as written each lane does the whole work at its own place, halved each lane would do half
        of it there, so the region means two things (AivSplitValid accepts it, as PyPTO's does; the
        lowering cannot keep its meaning)."""
        lane = lane_var(region)
        lanes = lane_values(region)
        if lane is None or not lanes:
            return
        name = user_base(lane)
        for call in body_calls(region.body):
            if any(mentions(a, lanes) for a in call.args):
                raise UserError(f"{PASS}: InCore function '{self.func.name}': {call.op.name} uses the lane index "
                                f"('{name}') of this {mode.name} pl.split_aiv region, whose reads are not "
                                f"addressed by it: the region then splits its work by its mode, so each lane "
                                f"computes half of what this call places by lane; address each lane's part by its "
                                f"read offsets (e.g. pl.slice(x, [HALF, N], [{name} * HALF, 0])), or drop "
                                f"the lane index and let the region split the work", call.span)

    # -- values halved by an earlier region ------------------------------------------------------
    def _carry_halves_in(self, region: S.SplitAivScopeStmt, mode: SplitMode,
                         explicit: bool) -> tuple[S.SplitAivScopeStmt, list[HalvedValue]]:
        """The halves of earlier regions this (full-width) region uses take the place of their full-width
        names; the region then halves the rest of its work the same way."""
        used = [self.halved[id(v)] for v in free_vars_in_order([region.body]) if id(v) in self.halved]
        if not used:
            return region, []
        for h in used:
            if mode is not h.mode or h.balanced_stride is not None:
                raise self._split_mismatch(h, region, mode)
            if explicit:
                raise self._per_lane_use(h, region)
        body = substitute_stmt(region.body, {h.original: h.half for h in used})
        return region.with_fields(body=body), used  # type: ignore[return-value]

    def _split_mismatch(self, h: HalvedValue, region: S.SplitAivScopeStmt, mode: SplitMode) -> UserError:
        name = user_base(h.original)
        dim = split_dimension(h.mode)
        if mode is SplitMode.NONE:
            why = "where each AIV lane runs the whole body and needs the whole tile"
        else:
            why = f"which splits dim {split_dimension(mode)}, so neither lane holds the part that region gives it"
        return UserError(f"{PASS}: InCore function '{self.func.name}': '{name}' is halved by the {h.mode.name} "
                         f"pl.split_aiv region at {_line(h.region)} (each AIV lane keeps only its half along dim "
                         f"{dim}) and used by this {mode.name} region at {_line(region)}, {why}; give both regions "
                         f"the same mode (pl.SplitMode.{h.mode.name}), or compute '{name}' inside the region that "
                         f"uses it", region.span)

    def _per_lane_use(self, h: HalvedValue, region: S.SplitAivScopeStmt) -> UserError:
        name = user_base(h.original)
        return UserError(f"{PASS}: InCore function '{self.func.name}': '{name}' is halved by the {h.mode.name} "
                         f"pl.split_aiv region at {_line(h.region)} and used by this region at {_line(region)}, "
                         f"which is written per lane (pl.aiv_shard, or reads addressed by its aiv_id) and so is "
                         f"passed through as written: its shapes and offsets are the ones written for the whole "
                         f"'{name}', not for a lane's half; write this region full width (no aiv_id addressing) so "
                         f"that it is halved the same way, or compute '{name}' inside it", region.span)

    def _check_no_half_outside(self, s: S.Stmt, exprs: Iterable[E.Expr] | None = None) -> None:
        """A halved value used outside every region (a compound statement: in its header) is an error."""
        if not self.halved:
            return
        for v in free_vars_in_order(list(exprs) if exprs is not None else [s]):
            h = self.halved.get(id(v))
            if h is None:
                continue
            name = user_base(v)
            raise UserError(f"{PASS}: InCore function '{self.func.name}': '{name}' is halved by the "
                            f"{h.mode.name} pl.split_aiv region at {_line(h.region)} (each AIV lane keeps only its "
                            f"half) and used here, outside every region, where nothing holds the whole tile; use "
                            f"it inside a region of the same mode (pl.split_aiv(2, mode=pl.SplitMode."
                            f"{h.mode.name})), or store it inside the region that computes it", s.span)

    def _record_halves(self, source: S.SplitAivScopeStmt, body: S.Stmt, splitter: Splitter) -> None:
        """The tiles this region's halving rebound: later regions get their halves."""
        for v in collect_def_vars(body):
            half = splitter.subst.get(id(v))
            split = splitter.facts.of(half) if isinstance(half, E.Var) else None
            if split is not None and isinstance(half.type, TileType):  # type: ignore[union-attr]
                self.halved[id(v)] = HalvedValue(v, half, split, source, splitter.mode,  # type: ignore[arg-type]
                                                 splitter.partition.balanced_stride)

    # -- full-width regions ---------------------------------------------------------------------
    def _reload_inputs(self, region: S.SplitAivScopeStmt) -> S.SplitAivScopeStmt:
        """Loads made before the region for its vector work are made again inside it, per lane."""
        defined = {id(v) for v in collect_def_vars(region.body)}
        mapping: dict[E.Var, E.Expr] = {}
        copies: list[S.Stmt] = []
        for v in free_vars_in_order([region.body]):
            load = self.loads.get(id(v))
            if load is None or id(v) in defined:
                continue
            copy = E.Var(self.fresh(user_base(v)), v.type, load.span)
            copies.append(S.AssignStmt(copy, load.value, load.span))
            mapping[v] = copy
        if not copies:
            return region
        stmts = flatten_to_stmts(substitute_stmt(region.body, mapping))
        head = 1 if lane_var(region) is not None else 0
        return region.with_fields(body=make_body([*stmts[:head], *copies, *stmts[head:]], region.body.span))

    def _take_stores(self, region: S.SplitAivScopeStmt,
                     following: list[S.Stmt]) -> tuple[S.SplitAivScopeStmt, list[S.Stmt]]:
        """Stores after the region of tiles it computes move to its end (a halved tile never leaves it)."""
        inside = {id(v) for v in collect_def_vars(region.body)}
        later: set[int] = set()
        taken: list[S.Stmt] = []
        kept: list[S.Stmt] = []
        for s in following:
            uses = {id(v) for v in free_vars_in_order([s])}
            movable = (isinstance(s, S.AssignStmt) and is_gm_transfer(s.value) and not uses & later
                       and any(id(a) in inside and isinstance(a.type, TileType) for a in s.value.args))  # type: ignore[union-attr]
            if movable:
                taken.append(s)
                inside.add(id(s.var))  # type: ignore[union-attr]
            else:
                kept.append(s)
                later.update(id(v) for v in collect_def_vars(s))
        if not taken:
            return region, following
        body = make_body([*flatten_to_stmts(region.body), *taken], region.body.span)
        return region.with_fields(body=body), kept  # type: ignore[return-value]

    def _halve(self, region: S.SplitAivScopeStmt, mode: SplitMode, lane: E.Var | None,
               halves: list[HalvedValue]) -> S.Stmt:
        subblock = E.Var(self.fresh("subblock_idx"), ScalarType(DataType.INDEX), region.span)
        splitter = Splitter(self.func, mode, LanePartition(subblock))
        splitter.fresh = self.fresh
        for h in halves:
            splitter.facts.record(h.half, h.split)  # each lane's own half, from the earlier region
        stmts = flatten_to_stmts(region.body)
        head = 1 if lane is not None else 0
        inject = S.AssignStmt(subblock, create_op_call("tile.get_subblock_idx", [], span=region.span), region.span)
        source = make_body([*stmts[:head], inject, *stmts[head:]], region.body.span)
        body = splitter.body(source)
        check_no_cube_tile_halved(body, splitter.facts, self.func)
        self._record_halves(region, source, splitter)
        return region.with_fields(body=body)

    # -- the function ---------------------------------------------------------------------------
    def run(self) -> F.Function:
        body = self._drop_dead_loads(self.block(self.func.body))
        rescan(self.func, body)
        if body is self.func.body and self.func.attrs.get("split_aiv"):
            return self.func
        attrs = {**self.func.attrs, "split_aiv": True}
        return self.func.with_fields(body=body, attrs=attrs)  # type: ignore[return-value]


    def _drop_dead_loads(self, body: S.Stmt) -> S.Stmt:
        """The loads a full-width region now makes per lane leave their originals unused: drop those."""
        used: set[int] = set()

        class Uses(IRVisitor):
            def visit_assign_stmt(self, s: S.AssignStmt) -> None:
                self.visit_expr(s.value)  # not the variable it defines

            def visit_var_like(self, var: E.Var) -> None:
                used.add(id(var))

        Uses().visit_stmt(body)
        dead = {k for k in self.loads if k not in used}
        if not dead:
            return body

        def keep(s: S.Stmt) -> bool:
            return not (isinstance(s, S.AssignStmt) and id(s.var) in dead)

        return make_body([s for s in flatten_to_stmts(body) if keep(s)], body.span)


class _Rescan(IRVisitor):
    def __init__(self, func: F.Function) -> None:
        self.func = func
        self.depth: list[S.ScopeStmt] = []

    def visit_scope_stmt(self, s: S.ScopeStmt) -> None:
        if isinstance(s, S.SplitAivScopeStmt):
            if self.depth:
                raise UserError(f"{PASS}: InCore function '{self.func.name}': this pl.split_aiv region is nested inside "
                                f"a scope ({type(self.depth[-1]).__name__}) that was not outlined, so it was not "
                                f"lowered (regions are lowered in place and never across a scope); delete the extra "
                                f"scope, or write the function as a plain @pl.function (Opaque) so that "
                                f"OutlineIncoreScopes outlines it", s.span)
            # The region wrapper is kept (PyPTO erases it), so only other scopes count.
            inner = [x for x in scopes_inside(s.body) if not isinstance(x, S.SplitAivScopeStmt)]
            if inner:
                raise UserError(f"{PASS}: a scope survives inside a pl.split_aiv region body. Region lowering does "
                                f"not cross a scope boundary, so the vector work of this {type(inner[0]).__name__} "
                                f"(in InCore function '{self.func.name}') would not be split per lane; write the "
                                f"scope's body inline in the region", inner[0].span)
            return
        self.depth.append(s)
        super().visit_scope_stmt(s)
        self.depth.pop()


def rescan(func: F.Function, body: S.Stmt) -> None:
    _Rescan(func).visit_stmt(body)


def lower_region_function(func: F.Function) -> F.Function:
    return RegionLowering(func).run()

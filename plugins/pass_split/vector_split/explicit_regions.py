"""Regions written per lane (docs/passes/lower_auto_vector_split.md, the region path,
lane extents): checked, their boundaries localised, their body otherwise passed through.

`check_per_lane_body` is ValidateMixedExplicitRegion with AnalyzeSplitBody's carry rules, over the region's
lane lattice (pypto_core/analysis/region_lanes.py): a forward scan in program order marks the per-lane values. Accepted vector ops: one that (transitively) consumes a
per-lane value; a pure generator (for itself only: it does not endorse its consumers); an
address-carrying op whose read address uses the region's `aiv_id` (its result is per lane). tile.create
and other SHARED calls are never reported. Loops carry the fact of their init; a carry that starts
neutral (a generator) and is given a per-lane value back is per lane (the body is scanned to a fixpoint
over its carries); a per-lane carry must get a per-lane value back. An if merge is per lane only when
both branches are. Carry mismatches are reported first, then every remaining full-width vector op, in
one error that also names the full-width values they take (a carry and where it starts, a generator, a
value from outside the region).

`LocalizeBoundaries` gives each aiv_shard its lane's valid extent (the type rule can only ceil-halve it):
a static ragged extent becomes `min(max(V, aiv_id*S) - aiv_id*S, S)` and flows into the consumers
that keep the valid region; a runtime extent stays the full box on the shard and its first consumer
carries the lane's extent. A consumer that changes the logical rectangle (a reduction, a slice) of a
ragged shard is rejected; a store of a lane that may be empty is guarded.
"""

from __future__ import annotations

from collections.abc import Sequence

from pypto_core.analysis.region_lanes import RegionLanes, lane_values
from pypto_core.errors import UserError
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import SplitMode
from pypto_core.ir.rewriting import BodyRewriter
from pypto_core.ir.types import TileType, dims_equal
from pypto_core.ir.visitor import IRVisitor
from pypto_core.ops.build import same_dim, static_int
from pypto_core.ops.registry import opdef_of
from pypto_plugins.pass_split.split_axis.facts import Split, SplitFacts
from pypto_plugins.pass_split.split_axis.halving import with_valid_region
from pypto_plugins.pass_split.split_axis.lanes import LanePartition, lane_one_may_be_empty
from pypto_plugins.pass_split.split_axis.modes import split_dimension
from pypto_plugins.pass_split.split_axis.splitter import PASS, guard_stores, with_lane_extent


def check_per_lane_body(region: S.SplitAivScopeStmt, func: F.Function) -> None:
    scan = RegionLanes(lane_values(region))
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
        values = scan.full_width_values()
        which = f" Full-width values they take: {'; '.join(values)}." if values else ""
        first = scan.full_width[0][1]
        raise UserError(f"{PASS}: {where}: this pl.split_aiv region mixes explicit per-lane work (pl.aiv_shard, "
                        f"loads addressed by the region's aiv_id) with full-width vector ops: {names}.{which} Their "
                        f"body is passed through as written, so both AIV lanes would compute the same whole tile: "
                        f"feed them per-lane operands (the shard's result, or loads and slices whose offsets use "
                        f"aiv_id), or move them to a pl.split_aiv(2, mode=pl.SplitMode.NONE) region", first.span)


class LocalizeBoundaries(BodyRewriter):
    """Each aiv_shard of a data-parallel region carries its lane's valid extent."""

    def __init__(self, func: F.Function, region: S.SplitAivScopeStmt, lane: E.Var, fresh: object) -> None:
        super().__init__(func)
        self.fresh = fresh  # type: ignore[assignment]
        self.dim = split_dimension(SplitMode(int(region.split)))
        self.partition = LanePartition(lane)
        self.facts = SplitFacts()  # a runtime-extent shard's Split holds the lane extent its consumers take

    def rewrite_call(self, call: E.Call, args: list[E.Expr], result: E.Var | None) -> E.Expr:
        if call.span is not None and call.span.is_valid():
            self.span = call.span
        opdef = opdef_of(call)
        if opdef is not None and opdef.traits.split_boundary == "c2v":
            return self._shard(call, args)
        if opdef is not None and opdef.traits.split_boundary == "v2c":
            return self._gather(call, args)
        args = with_lane_extent(self, call, args, self.facts, self.dim)
        # An operand rewritten, or a runtime-extent shard (its type the whole lane box, unchanged by the pass).
        changed = [i for i, (a, b) in enumerate(zip(args, call.args)) if a is not b or self._lane_extent(a) is not None]
        if not changed:
            return call
        return self._consumer(call, args, changed)

    def _lane_extent(self, value: E.Expr) -> E.Expr | None:
        split = self.facts.of(value)
        return split.lane_extent if split is not None else None

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
            # A runtime extent: the pop moves the whole box, the first consumer narrows (docs/passes/lower_auto_vector_split.md).
            valid[self.dim] = t.shape[self.dim]
        else:
            valid[self.dim] = lane_extent
        new = call.with_fields(type=with_valid_region(t, valid))
        self.facts.record(new, Split(self.dim, may_be_empty=lane_one_may_be_empty(lane_extent),
                                     lane_extent=lane_extent if static_int(v) is None else None, gathered_extent=v))
        return new

    def _gather(self, call: E.Call, args: list[E.Expr]) -> E.Expr:
        """An aic_gather of a localised shard (or of a consumer keeping its valid region) is typed exactly: the
        lanes' parts are adjacent by construction, so the gathered extent is the shard source's (docs/passes/lower_auto_vector_split.md,
        the region path); the type rule could only double its ceil guess. Any other operand is the author's and is
        left to the type rule and ExpandMixedKernel's gather code."""
        split = self.facts.of(args[0]) if args else None
        t = call.type
        if split is None or split.gathered_extent is None or not isinstance(t, TileType):
            return call if all(a is b for a, b in zip(args, call.args)) else call.with_fields(args=tuple(args))
        valid = list(t.valid_shape)
        valid[self.dim] = split.gathered_extent
        return call.with_fields(args=tuple(args), type=with_valid_region(t, valid))

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
        extent = self._lane_extent(source)
        valid = list(t.valid_shape)
        valid[self.dim] = extent if extent is not None else new_src.valid_shape[self.dim]
        new = E.Call(call.op, args, kwargs=dict(call.kwargs), attrs=dict(call.attrs),
                     type=with_valid_region(t, valid), span=call.span)
        split = self.facts.of(source)
        if split is not None:
            self.facts.record(new, Split(self.dim, may_be_empty=lane_one_may_be_empty(valid[self.dim]),
                                         gathered_extent=split.gathered_extent))
        return new

    def stmt(self, s: S.Stmt) -> list[S.Stmt]:
        return guard_stores(s, super().stmt(s), self.facts, self.fresh)  # type: ignore[arg-type]


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

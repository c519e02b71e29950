"""Per-lane values that leave a `pl.split_aiv` region (docs/passes/outline_incore_scopes.md, errors).

Before outlining, a region forks its lanes in place and its values leave it as lane 0's; the scope's
kernel is marked `split_aiv`, so every lane runs the whole kernel, the code after the region included,
each with its own values. A value computed from the lane index (the region's `aiv_id`, a `pl.aiv_shard`)
and not reassembled by a splitting `pl.aic_gather` (a NONE region's gather hands each lane its own part
back) would make the lanes compute, and write, different data after the region: a user error.
"""

from __future__ import annotations

from collections.abc import Sequence

from pypto_core.errors import UserError
from pypto_core.ir import expr as E
from pypto_core.ir import stmt as S
from pypto_core.ir.fresh_names import user_base
from pypto_core.ir.types import TensorType
from pypto_core.ir.utils import flatten_to_stmts, free_vars_in_order
from pypto_core.ops.opdef import Effect
from pypto_core.ops.registry import opdef_of

Region = S.SplitAivScopeStmt


def _split_kwarg(call: E.Call) -> int:
    try:
        return int(call.kwargs.get("split") or 0)
    except (TypeError, ValueError):
        return 0


class _LaneValues:
    def __init__(self) -> None:
        self.per_lane: dict[int, Region] = {}  # id(var) -> the region whose lane it depends on

    def region_of(self, exprs: Sequence[object]) -> tuple[E.Var, Region] | None:
        if not self.per_lane:
            return None  # nothing is per lane yet (no region so far): no walk of the expressions
        for v in free_vars_in_order([e for e in exprs if e is not None]):
            r = self.per_lane.get(id(v))
            if r is not None:
                return v, r
        return None

    def _sources(self, value: E.Expr) -> list[E.Expr]:
        """A call that writes a tensor in place and returns it gives back the destination (shared memory)."""
        opdef = opdef_of(value) if isinstance(value, E.Call) else None
        if opdef is None or not isinstance(value.type, TensorType):
            return [value]
        effects = opdef.arg_effects(value.kwargs)  # type: ignore[union-attr]
        written = [a for i, a in enumerate(value.args)  # type: ignore[union-attr]
                   if effects.get(i) in (Effect.WRITE, Effect.READ_WRITE)]
        return written or [value]

    def _depends(self, value: E.Expr, region: Region) -> bool:
        opdef = opdef_of(value) if isinstance(value, E.Call) else None
        if opdef is not None:
            if opdef.traits.lane_index:
                return True
            if opdef.traits.split_boundary == "c2v" and _split_kwarg(value):  # type: ignore[arg-type]
                return True
            if opdef.traits.split_boundary == "v2c" and _split_kwarg(value):  # type: ignore[arg-type]
                return False  # a splitting gather reassembles both lanes' parts: a lane barrier
        return self.region_of(self._sources(value)) is not None

    # -- the walk ---------------------------------------------------------------------------------------
    def stmts(self, stmts: Sequence[S.Stmt], region: Region | None) -> None:
        for s in stmts:
            self.stmt(s, region)

    def stmt(self, s: S.Stmt, region: Region | None) -> None:
        if isinstance(s, S.SeqStmts):
            self.stmts(flatten_to_stmts(s), region)
        elif isinstance(s, Region):
            self.stmts(flatten_to_stmts(s.body), s if region is None else region)
        elif isinstance(s, S.ScopeStmt):
            self.stmts(flatten_to_stmts(s.body), region)
        elif region is None:
            self.outside(s)
        elif isinstance(s, S.AssignStmt):
            if self._depends(s.value, region):
                self.per_lane[id(s.var)] = region
        elif isinstance(s, (S.ForStmt, S.WhileStmt)):
            header = [s.start, s.stop, s.step] if isinstance(s, S.ForStmt) else [s.condition]
            if isinstance(s, S.ForStmt) and self.region_of(header) is not None:
                self.per_lane[id(s.loop_var)] = region
            for a in s.iter_args:
                if self.region_of([a.initValue]) is not None:
                    self.per_lane[id(a)] = region
            self.stmts(flatten_to_stmts(s.body), region)
            yielded = _trailing_yield(s.body)
            for i, rv in enumerate(s.return_vars):
                carried = [s.iter_args[i]] if i < len(s.iter_args) else []
                if self.region_of(carried + list(yielded[i:i + 1])) is not None:
                    self.per_lane[id(rv)] = region
        elif isinstance(s, S.IfStmt):
            lane_cond = self.region_of([s.condition]) is not None
            self.stmts(flatten_to_stmts(s.then_body), region)
            self.stmts(flatten_to_stmts(s.else_body), region)
            then_y, else_y = _trailing_yield(s.then_body), _trailing_yield(s.else_body)
            for i, rv in enumerate(s.return_vars):
                if lane_cond or self.region_of(list(then_y[i:i + 1]) + list(else_y[i:i + 1])) is not None:
                    self.per_lane[id(rv)] = region

    def outside(self, s: S.Stmt) -> None:
        """A statement after the regions: every lane of the kernel runs it."""
        if isinstance(s, (S.ForStmt, S.WhileStmt)):
            header = ([s.start, s.stop, s.step] if isinstance(s, S.ForStmt) else [s.condition])
            self.check(header + [a.initValue for a in s.iter_args], s.span)
            self.stmts(flatten_to_stmts(s.body), None)
        elif isinstance(s, S.IfStmt):
            self.check([s.condition], s.span)
            self.stmts(flatten_to_stmts(s.then_body), None)
            self.stmts(flatten_to_stmts(s.else_body), None)
        else:
            self.check([s], s.span)

    def check(self, exprs: Sequence[object], span: object) -> None:
        found = self.region_of(exprs)
        if found is None:
            return
        var, region = found
        name = user_base(var)
        line = region.span.begin_line if region.span is not None and region.span.is_valid() else "?"
        raise UserError(
            f"OutlineIncoreScopes: '{name}' is computed per lane in the pl.split_aiv(2, "
            f"mode=pl.SplitMode.{region.split.name}) region at line {line} (it depends on the region's lane "
            f"index) and is used after that region; the scope becomes a split_aiv kernel, whose every lane runs "
            f"the code after the region with its own '{name}', so the lanes would compute and write different "
            f"data. Hand the lanes' parts back through a lane barrier (a pl.split_aiv region of mode UP_DOWN or "
            f"LEFT_RIGHT, whose pl.aic_gather reassembles both parts), or keep the work that uses '{name}' "
            f"inside the region", span)


def _trailing_yield(body: S.Stmt | None) -> tuple[E.Expr, ...]:
    stmts = flatten_to_stmts(body) if body is not None else []
    return tuple(stmts[-1].value) if stmts and isinstance(stmts[-1], S.YieldStmt) else ()


def check_lane_values(scope: S.InCoreScopeStmt) -> None:
    """Raise a located UserError when a per-lane value of a split_aiv region is used after the region."""
    _LaneValues().stmts(flatten_to_stmts(scope.body), None)

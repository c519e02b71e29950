"""The lane lattice inside a `pl.split_aiv` region (docs/passes/lower_auto_vector_split.md, the region path).

The two AIV lanes run a region's body alike. Each value of the body is

* PER_LANE: each lane's own part: a splitting `pl.aiv_shard`'s result, a read whose address uses the
  region's lane-varying scalars (it is *lane-addressed*), or a value computed from per-lane values;
* NEUTRAL: a pure generator's result (`pl.full`, `pl.tile.ci`): the same on both lanes, per lane for
  itself only (it does not make its consumers per lane);
* FULL_WIDTH: everything else, the same whole value on both lanes (a vector op on it computes the whole
  tile on each lane).

The lane-varying scalars are the region's `aiv_id` (bound to the op with the registry trait `lane_index`)
and every scalar whose value depends on it: computed from it, a loop variable whose bounds read it, a loop
carry started or given back from it, an if result under a condition on it. Which scalars those are is the
function-wide lane-dependence engine's answer (lane_dependence.py), so the region lattice and the
cross-region checks agree on what differs between the lanes. Loops carry the fact of their initial value; a
carry that starts neutral and is given a per-lane value back is per lane (the body is scanned to a
fixpoint); a per-lane carry given a full-width value back is a mismatch. An if's result is per lane only
when both branches yield per-lane values. The explicit-region checks of LowerAutoVectorSplit and
AivSplitValid ask this scan.

Both take their lane sources from the registry: the `lane_index` trait and `split_boundary` ("c2v" a shard
into the lanes, "v2c" a gather out of them).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from pypto_core.analysis.affinity import classify_call_affinity
from pypto_core.analysis.lane_dependence import lane_sources, scan
from pypto_core.analysis.walk import op_calls, vars_read
from pypto_core.ir import expr as E
from pypto_core.ir import stmt as S
from pypto_core.ir.fresh_names import user_base
from pypto_core.ir.rewriting import trailing_yield
from pypto_core.ir.types import ScalarType, TileType
from pypto_core.ir.utils import describe_operand, flatten_to_stmts
from pypto_core.ops.opdef import CoreAffinity
from pypto_core.ops.registry import opdef_of


class Lane(enum.Enum):
    """What a value of a region's body is on the two lanes (module docstring)."""

    FULL_WIDTH = "full width"
    NEUTRAL = "neutral"
    PER_LANE = "per lane"


def lane_var(region: S.SplitAivScopeStmt) -> E.Var | None:
    """The region's `aiv_id`: the variable its first statement binds to the lane index, if it does."""
    stmts = flatten_to_stmts(region.body)
    if stmts and isinstance(stmts[0], S.AssignStmt) and isinstance(stmts[0].value, E.Call):
        opdef = opdef_of(stmts[0].value)
        if opdef is not None and opdef.traits.lane_index:
            return stmts[0].var
    return None


def mentions(expr: E.Expr, lanes: frozenset[int]) -> bool:
    """Whether `expr` reads one of the variables `lanes` (by id)."""
    return bool(lanes) and any(id(v) in lanes for v in vars_read(expr))


def lane_values(region: S.SplitAivScopeStmt) -> frozenset[int]:
    """The region's lane-varying scalars, by variable id: its `aiv_id` and the scalars whose value depends on
    it (`base = aiv_id * 64`, a loop variable of `pl.range(aiv_id, n, 2)`, a carry started from one of them),
    as the lane-dependence engine finds them."""
    lane = lane_var(region)
    if lane is None:
        return frozenset()
    facts = scan((), region)
    return frozenset(id(d.var) for d in facts.definitions
                     if isinstance(d.var.type, ScalarType) and any(s.var is lane for s in lane_sources(d)))


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


@dataclass(frozen=True, eq=False)  # Exprs compare by identity (`==` on an Expr builds an Eq node)
class Carry:
    """A loop carry of the scanned body: its iter_arg, initial value and the value yielded back."""

    iter_arg: E.IterArg
    init: E.Expr
    yielded: E.Expr | None


class RegionLanes:
    """The forward scan of a region's body (module docstring): each value's Lane, the full-width vector ops
    it met, and the loop carries that start per lane but are given a full-width value back."""

    def __init__(self, lanes: frozenset[int]) -> None:
        self.lanes = lanes
        self.per_lane: set[int] = set()
        self.neutral: set[int] = set()
        self.defs: dict[int, E.Expr] = {}  # a variable -> the value bound to it in the region
        self.carries: dict[int, Carry] = {}  # an iter_arg or a loop result -> its carry
        self.full_width: list[tuple[str, E.Call]] = []
        self.carry_mismatches: list[str] = []

    def is_per_lane(self, e: E.Expr) -> bool:
        if id(e) in self.per_lane:
            return True
        if isinstance(e, E.TupleGetItemExpr):
            return self.is_per_lane(e.tuple)
        return False

    def is_neutral(self, e: E.Expr) -> bool:
        return id(e) in self.neutral and not self.is_per_lane(e)

    def lane(self, e: E.Expr) -> Lane:
        """The lattice value of a scanned expression."""
        if self.is_per_lane(e):
            return Lane.PER_LANE
        return Lane.NEUTRAL if self.is_neutral(e) else Lane.FULL_WIDTH

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
        if opdef.traits.pure_generator:
            self.neutral.add(id(call))
            return False
        affinity = classify_call_affinity(call)
        if affinity is CoreAffinity.VECTOR and not opdef.traits.lane_index:
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
            self.defs[id(s.var)] = s.value
            if self.expr(s.value):
                self.per_lane.add(id(s.var))
            elif self.is_neutral(s.value):
                self.neutral.add(id(s.var))
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
            elif self.is_neutral(ia.initValue):
                self.neutral.add(id(ia))
        yielded = self._body_to_fixpoint(s)
        for i, ia in enumerate(s.iter_args):
            carry = Carry(ia, ia.initValue, yielded[i] if i < len(yielded) else None)
            self.carries[id(ia)] = carry
            carried = id(ia) in self.per_lane
            back = carry.yielded is not None and self.is_per_lane(carry.yielded)
            if carried and not back:
                self.carry_mismatches.append(ia.name_hint)
            if i >= len(s.return_vars):
                continue
            rv = s.return_vars[i]
            self.carries[id(rv)] = carry
            if carried:
                self.per_lane.add(id(rv))
            elif id(ia) in self.neutral and (carry.yielded is None or self.is_neutral(carry.yielded)
                                            or carry.yielded is ia):
                self.neutral.add(id(rv))

    def _body_to_fixpoint(self, s: S.ForStmt | S.WhileStmt) -> tuple[E.Expr, ...]:
        """Scan the body until no carry changes. A neutral
        initial value may become per lane in the body. A carry that starts neutral (a generator) and is
        given a per-lane value back accumulates per-lane values, so it is per lane itself, its uses in the
        body too: the body is scanned again with it (the findings of the earlier scan are dropped). Its
        exit after zero iterations is the generator's value, which is per lane for itself, so the exit is
        per lane as well (PyPTO's LowerAutoVectorSplit keeps carry and exit neutral instead; this scan has no neutral consumer
        state, so a neutral exit would make its store full width)."""
        while True:
            reported, mismatched = len(self.full_width), len(self.carry_mismatches)
            self.body(s.body)
            last = trailing_yield(s.body)
            yielded = tuple(last.value) if last is not None else ()
            grown = [ia for ia, v in zip(s.iter_args, yielded)
                     if self.is_neutral(ia) and self.is_per_lane(v)]
            if not grown:
                return yielded
            self.per_lane.update(id(ia) for ia in grown)
            del self.full_width[reported:]
            del self.carry_mismatches[mismatched:]

    # -- naming the full-width values -------------------------------------------------------------
    def describe(self, e: E.Expr, depth: int = 0) -> str:
        """Why a value is not per lane, for the message: a carry, a generator, an outside value."""
        carry = self.carries.get(id(e))
        if carry is not None:
            if depth:
                return f"'{user_base(e)}', a loop carry"
            back = self.describe(carry.yielded, 1) if carry.yielded is not None else "nothing"
            return (f"loop carry '{user_base(carry.iter_arg)}' (starts from {self.describe(carry.init, 1)}; "
                    f"given back {back})")
        value = self.defs.get(id(e), e if isinstance(e, E.Call) else None)
        if not isinstance(value, E.Call):
            return f"'{user_base(e)}', defined outside the region (full width)" if isinstance(e, E.Var) else describe_operand(e)
        named = f"'{user_base(e)}' = {value.op.name}" if isinstance(e, E.Var) else f"{value.op.name}(...)"
        opdef = opdef_of(value)
        if opdef is not None and opdef.traits.pure_generator:
            return f"{named}, a generator that is per lane for itself only"
        if opdef is not None and opdef.traits.read_address_args:
            return f"{named}, whose read address does not use aiv_id"
        return f"{named}, full width"

    def full_width_values(self) -> list[str]:
        """The tile operands of the reported ops that are not per lane, each described once (a carry
        once for its iter_arg and its loop result)."""
        out: dict[int, str] = {}
        for _, call in self.full_width:
            for a in call.args:
                if not isinstance(a.type, TileType) or self.is_per_lane(a):
                    continue
                carry = self.carries.get(id(a))
                key = id(carry) if carry is not None else id(a)
                if key not in out:
                    out[key] = self.describe(a)
        return list(out.values())

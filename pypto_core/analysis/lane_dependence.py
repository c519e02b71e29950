"""Which values depend on an AIV lane's index: one program-order scan of a kernel body, asked of the registry.

A `pl.split_aiv` region forks the two AIV lanes; a value computed from the lane index (the result of an op with
the registry trait `lane_index`, which the region's `aiv_id` is bound to), from a splitting `pl.aiv_shard`
(`split_boundary == "c2v"` with a split: each lane gets its half), or from such values -- through the scalars and
tiles computed from them, a loop's bounds (its variable, and its on-chip or scalar results, whose values
depend on the trip count), a loop carry, an if's condition or yields -- differs between the lanes. A splitting `pl.aic_gather` reassembles both lanes' parts, so its result does not (a lane barrier); an
in-place write into a GM tensor (an argument the registry declares Write / ReadWrite) gives back the
destination, shared memory, whatever the lanes wrote into it.

Three checks ask this scan (docs/passes/lower_auto_vector_split.md; docs/passes/outline_incore_scopes.md):
AivSplitValid (a per-lane value used in another region; a data-parallel region steered by its lane),
OutlineIncoreScopes (a per-lane value used after its region or leaving its scope) and ConvertTensorToTileOps
(a region boundary under lane-steered control flow).

Each use sees the definition that reaches it in program order, so a name the DSL assigns twice before
ConvertToSSA is two values; values carried around loops are followed through iter_args.

This is the one lane-dependence engine: region_lanes.py builds the lattice of one region's body (per lane,
neutral, full width), which the split pass's explicit regions need, on the lane-varying scalars this scan
finds, and HardSyncallOccupancyValid asks it which barriers sit under lane-steered control flow.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from pypto_core.ir import expr as E
from pypto_core.ir import stmt as S
from pypto_core.ir.node import FieldRole
from pypto_core.ir.span import Span
from pypto_core.ir.types import TensorType
from pypto_core.ir.visitor import IRVisitor
from pypto_core.ops.opdef import Effect
from pypto_core.ops.registry import opdef_of

Region = S.SplitAivScopeStmt


@dataclass(eq=False)
class Carry:
    """A loop-carried value: the definitions of its initial value and of what the body yields back."""

    region: Region | None  # the region the loop is in
    init: Definition | None  # None: not a variable
    yielded: Definition | None = None  # filled once the loop body is scanned


@dataclass(eq=False)
class Definition:
    """One definition of a variable, where it is made and of what."""

    var: E.Var
    region: Region | None  # the innermost pl.split_aiv region it is made in
    value: E.Expr | None = None  # the assigned value (None: a parameter, loop variable, iter_arg, ...)
    alias: Definition | None = None  # `x = y`: y's definition
    carry: Carry | None = None  # an iter_arg or a loop's return variable
    deps: tuple[Definition, ...] = ()  # the definitions its value (a loop variable: its bounds) reads
    lane_source: bool = False  # the lane index itself (a `lane_index` op) or a splitting pl.aiv_shard result


@dataclass
class Use:
    definition: Definition  # the one that reaches the use
    region: Region | None
    span: Span


@dataclass(frozen=True)
class Steering:
    """A loop or if, with the definitions its header (bounds and step, or condition) reads."""

    stmt: S.Stmt
    region: Region | None
    reads: tuple[Definition, ...]


@dataclass
class CallSite:
    call: E.Call
    region: Region | None
    operands: dict[int, Definition]  # the definitions reaching its variable operands, by position
    bound: E.Var | None = None  # the variable an AssignStmt binds the call to
    steered_by: tuple[Steering, ...] = ()  # the loops and ifs around it, outermost first


@dataclass
class FunctionFacts:
    calls: list[CallSite] = field(default_factory=list)  # op calls, nested ones too, in program order
    uses: list[Use] = field(default_factory=list)
    regions: list[Region] = field(default_factory=list)
    steering: list[Steering] = field(default_factory=list)  # every loop and if, in program order
    defined: dict[E.Var, Definition] = field(default_factory=dict)  # each variable's last definition
    definitions: list[Definition] = field(default_factory=list)  # every definition, in program order


class _ExprUses(IRVisitor):
    def __init__(self) -> None:
        self.calls: list[E.Call] = []
        self.vars: list[E.Var] = []

    def visit_call(self, call: E.Call) -> None:
        if opdef_of(call) is not None:
            self.calls.append(call)
        super().visit_call(call)

    def visit_var_like(self, var: E.Var) -> None:
        self.vars.append(var)
        super().visit_var_like(var)

    def visit_iter_arg(self, var: E.IterArg) -> None:
        self.visit_var_like(var)  # a use in the body: the initial value belongs to the loop header


def value_sources(value: E.Expr) -> list[E.Expr]:
    """What a value is computed from. A call that writes a GM tensor in place and returns it (a store, an
    assemble) gives back the destination, shared memory: its value is the destination's, whatever the
    lanes wrote into it (the registry's argument effects). A splitting pl.aic_gather is a lane barrier:
    its value is both lanes' parts, the same on each lane."""
    opdef = opdef_of(value) if isinstance(value, E.Call) else None
    if opdef is None:
        return [value]
    if opdef.traits.split_boundary == "v2c" and _splits(value):  # type: ignore[arg-type]
        return []
    if not isinstance(value.type, TensorType):
        return [value]
    effects = opdef.arg_effects(value.kwargs)  # type: ignore[union-attr]
    written = [a for i, a in enumerate(value.args)  # type: ignore[union-attr]
               if effects.get(i) in (Effect.WRITE, Effect.READ_WRITE)]
    return written or [value]


def _splits(call: E.Call) -> bool:
    """A boundary call with a split mode (`split` kwarg != 0): it halves or reassembles the lanes' parts."""
    try:
        return bool(int(call.kwargs.get("split") or 0))
    except (TypeError, ValueError):
        return False


def _is_lane_source(value: E.Expr | None) -> bool:
    opdef = opdef_of(value) if isinstance(value, E.Call) else None
    if opdef is None:
        return False
    return opdef.traits.lane_index or (opdef.traits.split_boundary == "c2v" and _splits(value))  # type: ignore[arg-type]


def _exit_of(stmt: S.Stmt, var: E.Var) -> bool:
    """Whether `var` is one of a loop's return variables."""
    return isinstance(stmt, (S.ForStmt, S.WhileStmt)) and any(var is rv for rv in stmt.return_vars)


def _trailing_yield(body: S.Stmt | None) -> tuple[E.Expr, ...]:
    while isinstance(body, S.SeqStmts) and body.stmts:
        body = body.stmts[-1]
    return tuple(body.value) if isinstance(body, S.YieldStmt) else ()


class _Scan:
    """One walk of a body in program order, keeping the region and the loops / ifs each statement is in and
    the definition of each variable that reaches each use."""

    def __init__(self, params: Sequence[E.Var], body: S.Stmt) -> None:
        self.facts = FunctionFacts()
        self.current: dict[E.Var, Definition] = {p: Definition(p, None) for p in params}
        self.carries: dict[E.Var, Carry] = {}
        self.enclosing: list[Steering] = []
        self.branch_yields: dict[int, list[list[Definition | None]]] = {}  # if id -> each branch's yields
        self.stmt(body, None)
        self.facts.defined = self.current

    def stmt(self, stmt: S.Stmt, region: Region | None) -> None:
        if isinstance(stmt, Region):
            self.facts.regions.append(stmt)
            region = stmt
        loop = isinstance(stmt, (S.ForStmt, S.WhileStmt))
        carries = self.loop_carries(stmt, region) if loop else []  # type: ignore[arg-type]
        steering = None
        if isinstance(stmt, (S.ForStmt, S.WhileStmt, S.IfStmt)):
            header = [stmt.start, stmt.stop, stmt.step] if isinstance(stmt, S.ForStmt) else [stmt.condition]
            steering = Steering(stmt, region, self.reads(header))
            self.facts.steering.append(steering)
        # Generic over the field declarations: a new statement kind needs nothing here. An assignment's
        # value is read before its variable is bound (`x = f(x)` reads the earlier x).
        specs = type(stmt).COMPARED_FIELDS
        if isinstance(stmt, S.AssignStmt):
            specs = sorted(specs, key=lambda spec: spec.role is FieldRole.DEF)
        for spec in specs:
            value = getattr(stmt, spec.name)
            for item in value if isinstance(value, tuple) else (value,):
                if isinstance(item, S.Stmt):
                    if steering is not None:
                        self.enclosing.append(steering)
                    self.stmt(item, region)
                    if steering is not None:
                        self.enclosing.pop()
                    if isinstance(stmt, S.IfStmt):
                        yielded = [self.current.get(v) if isinstance(v, E.Var) else None
                                   for v in _trailing_yield(item)]
                        self.branch_yields.setdefault(id(stmt), []).append(yielded)
                elif isinstance(item, E.Var) and spec.role is FieldRole.DEF:
                    self.define(item, stmt, region)
                elif isinstance(item, E.Expr):
                    self.use(item, stmt, region)
            if loop and spec.name == "body":
                yielded = _trailing_yield(stmt.body)  # type: ignore[attr-defined]
                for k, carry in enumerate(carries):
                    if k < len(yielded) and isinstance(yielded[k], E.Var):
                        carry.yielded = self.current.get(yielded[k])
        self.branch_yields.pop(id(stmt), None)

    def loop_carries(self, loop: S.ForStmt | S.WhileStmt, region: Region | None) -> list[Carry]:
        carries = []
        for k, ia in enumerate(loop.iter_args):
            init = self.current.get(ia.initValue) if isinstance(ia.initValue, E.Var) else None
            carry = Carry(region, init)
            carries.append(carry)
            self.carries[ia] = carry
            if k < len(loop.return_vars):
                self.carries[loop.return_vars[k]] = carry
        return carries

    def reads(self, exprs: Sequence[E.Expr | None]) -> tuple[Definition, ...]:
        walker = _ExprUses()
        for e in exprs:
            if e is not None:
                walker.visit_expr(e)
        return tuple(self.current[v] for v in walker.vars if v in self.current)

    def define(self, var: E.Var, stmt: S.Stmt, region: Region | None) -> None:
        if isinstance(var, E.IterArg):
            self.use(var.initValue, stmt, region)
        elif var.type.has_vars:
            self.use_type_of(var, stmt, region)
        value = stmt.value if isinstance(stmt, S.AssignStmt) else None
        alias = self.current.get(value) if isinstance(value, E.Var) else None
        if isinstance(stmt, S.AssignStmt):
            deps = self.reads(value_sources(stmt.value))
        elif isinstance(stmt, S.ForStmt) and var is stmt.loop_var:
            deps = self.reads([stmt.start, stmt.stop, stmt.step])  # the lanes' iterations differ with them
        elif _exit_of(stmt, var) and not isinstance(var.type, TensorType):
            # An on-chip or scalar carry's exit depends on the trip count. A GM tensor carried out is shared
            # memory, the same tensor on both lanes whatever each lane wrote into it.
            deps = self.reads([stmt.start, stmt.stop, stmt.step] if isinstance(stmt, S.ForStmt)
                              else [stmt.condition])  # type: ignore[attr-defined]
        elif isinstance(stmt, S.IfStmt):
            k = next(i for i, rv in enumerate(stmt.return_vars) if rv is var)
            branches = self.branch_yields.get(id(stmt), [])
            yielded = tuple(b[k] for b in branches if k < len(b) and b[k] is not None)
            deps = self.reads([stmt.condition]) + yielded  # type: ignore[operator]
        else:
            deps = ()
        self.current[var] = Definition(var, region, value, alias, self.carries.get(var), deps,
                                       _is_lane_source(value))
        self.facts.definitions.append(self.current[var])
        if isinstance(value, E.Call):
            for site in reversed(self.facts.calls):
                if site.call is value:
                    site.bound = var
                    break

    def use_type_of(self, var: E.Var, stmt: S.Stmt, region: Region | None) -> None:
        walker = _ExprUses()
        walker.visit_type(var.type)
        self.record_uses(walker.vars, stmt, region)

    def use(self, expr: E.Expr, stmt: S.Stmt, region: Region | None) -> None:
        walker = _ExprUses()
        walker.visit_expr(expr)
        enclosing = tuple(self.enclosing)
        for call in walker.calls:
            operands = {i: self.current[a] for i, a in enumerate(call.args)
                        if isinstance(a, E.Var) and a in self.current}
            self.facts.calls.append(CallSite(call, region, operands, steered_by=enclosing))
        self.record_uses(walker.vars, stmt, region)

    def record_uses(self, variables: list[E.Var], stmt: S.Stmt, region: Region | None) -> None:
        for v in variables:
            d = self.current.get(v)
            if d is not None:
                self.facts.uses.append(Use(d, region, stmt.span))


def scan(params: Sequence[E.Var], body: S.Stmt) -> FunctionFacts:
    """The definitions, uses, calls, regions and loops / ifs of a kernel body (`params`: its inputs)."""
    return _Scan(params, body).facts


def base(d: Definition) -> Definition:
    """The definition an alias chain (`x = y`) ends at."""
    while d.alias is not None and d.alias is not d:
        d = d.alias
    return d


def lane_sources(d: Definition, seen: set[int] | None = None) -> list[Definition]:
    """The lane sources a value depends on: it is (computed from) a lane index or a splitting shard, directly,
    through the values computed from it, a loop bound, a loop carry, or an if's condition or yields."""
    seen = seen if seen is not None else set()
    if id(d) in seen:
        return []
    seen.add(id(d))
    out: list[Definition] = [d] if d.lane_source else []
    sources = list(d.deps)
    if d.alias is not None:
        sources.append(d.alias)
    if d.carry is not None:
        sources += [x for x in (d.carry.init, d.carry.yielded) if x is not None]
    for x in sources:
        for s in lane_sources(x, seen):
            if not any(s is o for o in out):
                out.append(s)
    return out


def lane_steered(site: CallSite) -> Steering | None:
    """The innermost loop or if around a call whose header (bounds, step or condition) reads a value that
    differs between the lanes, if there is one: the lanes may reach the call a different number of times."""
    for steering in reversed(site.steered_by):
        if any(lane_sources(d) for d in steering.reads):
            return steering
    return None


def lane_regions(d: Definition) -> list[Region]:
    """The regions whose lane index a value depends on (see lane_sources)."""
    out: list[Region] = []
    for s in lane_sources(d):
        if s.region is not None and not any(s.region is r for r in out):
            out.append(s.region)
    return out


__all__ = ["Carry", "CallSite", "Definition", "FunctionFacts", "Region", "Steering", "Use", "base", "lane_regions",
           "lane_sources", "lane_steered", "scan", "value_sources"]

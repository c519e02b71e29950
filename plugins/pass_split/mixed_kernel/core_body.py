"""One core's body of a mixed kernel (docs/passes/expand_mixed_kernel.md, placement): the AIC keeps CUBE + SHARED statements, the AIV
VECTOR + SHARED ones (regions place theirs through the pass-local map, placement.py); control flow is
duplicated on both sides; each boundary becomes its half of a transfer pair (transfers.py); GM fences add
their token push / pop (fences.py).

What a side drops is *foreign* to it. A foreign store's result (a call returning the tensor it writes, asked
of the registry's arg effects) or a foreign copy is remapped to the tensor it aliases, so a loop carry or a
return that names it still means the same buffer; cleanup.py then removes what became dead.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pypto_core.ir import expr as E
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import MemorySpace
from pypto_core.ir.span import Span
from pypto_core.ir.types import TileType
from pypto_core.ir.utils import flatten_to_stmts, make_body
from pypto_plugins.pass_split.mixed_kernel import transfers as T
from pypto_plugins.pass_split.mixed_kernel.aliases import written_tensor
from pypto_plugins.pass_split.mixed_kernel.fences import Fence
from pypto_plugins.pass_split.mixed_kernel.placement import statement_sides
from pypto_plugins.pass_split.mixed_kernel.sides import BOTH, Side, Sides


@dataclass
class SplitPlan:
    """What the two sides share: placement, boundaries and fences, decided once on the consumed body."""

    placement: dict[int, Sides]
    boundaries: dict[int, T.Boundary]
    fences_after: dict[int, Fence]  # id(cube store) -> its fence
    fences_before: dict[int, list[Fence]]  # id(statement) -> the fences popped right before it
    backend: Any
    fresh: Any  # FreshNames of the function
    adapters: dict[int, str] = field(default_factory=dict)  # id(V->C boundary) -> the NZ adapter's name

    def sides(self, s: S.AssignStmt | S.EvalStmt) -> Sides:
        placed = self.placement.get(id(s))
        if placed is not None:
            return placed
        sides = statement_sides(s)
        return BOTH if sides is None else sides


class CoreBody:
    def __init__(self, side: Side, plan: SplitPlan) -> None:
        self.side = side
        self.plan = plan
        self.foreign: dict[int, tuple[str, Span]] = {}  # id(var) -> (what defines it on the other side, where)
        self.aliases: dict[int, tuple[E.Var, E.Expr]] = {}  # foreign store results -> the tensor written
        self.retyped: dict[int, tuple[E.Var, E.Var]] = {}  # pops whose type the transfer view changed
        self.carriers: dict[int, E.Var] = {}  # id(value a loop's trailing yield carries) -> its iter arg

    def block(self, stmt: S.Stmt) -> list[S.Stmt]:
        out: list[S.Stmt] = []
        for s in flatten_to_stmts(stmt):
            out.extend(self.stmt(s))
        return out

    def stmt(self, s: S.Stmt) -> list[S.Stmt]:
        fences = self.plan.fences_before.get(id(s), []) if self.side is Side.AIV else []
        return [f.pop_stmt() for f in fences] + self.placed(s)

    def placed(self, s: S.Stmt) -> list[S.Stmt]:
        if isinstance(s, (S.AssignStmt, S.EvalStmt)):
            return self.simple(s)
        if isinstance(s, S.ReturnStmt):
            return [] if self.side is Side.AIC else [s]  # the AIC function returns nothing (docs/passes/expand_mixed_kernel.md, example)
        if isinstance(s, (S.ForStmt, S.WhileStmt)):
            self.carriers.update(carriers_of(s))
            return [s.with_fields(body=make_body(self.block(s.body), s.body.span))]
        if isinstance(s, S.ScopeStmt):
            return [s.with_fields(body=make_body(self.block(s.body), s.body.span))]
        if isinstance(s, S.IfStmt):
            then_body = make_body(self.carried(s, self.block(s.then_body)), s.then_body.span)
            else_body = None if s.else_body is None else make_body(self.carried(s, self.block(s.else_body)),
                                                                   s.else_body.span)
            return [s.with_fields(then_body=then_body, else_body=else_body)]
        return [s]  # yield, break, continue

    def carried(self, s: S.IfStmt, stmts: list[S.Stmt]) -> list[S.Stmt]:
        """A branch yield of a value the other core computes, for a merge its loop carries, becomes the identity
        yield of that carry (docs/passes/expand_mixed_kernel.md, placement): the carry stays on this side."""
        if not stmts or not isinstance(stmts[-1], S.YieldStmt):
            return stmts
        values = list(stmts[-1].value)
        for k, (rv, value) in enumerate(zip(s.return_vars, values)):
            carrier = self.carriers.get(id(rv))
            if carrier is not None and isinstance(value, E.Var) and id(value) in self.foreign \
                    and id(value) not in self.aliases:
                values[k] = carrier
        if all(a is b for a, b in zip(values, stmts[-1].value)):
            return stmts
        return stmts[:-1] + [stmts[-1].with_fields(value=tuple(values))]

    def simple(self, s: S.AssignStmt | S.EvalStmt) -> list[S.Stmt]:
        boundary = self.plan.boundaries.get(id(s))
        if boundary is not None:
            return self.transfer(boundary)
        out: list[S.Stmt] = []
        if self.side in self.plan.sides(s):
            out.append(s)
        elif isinstance(s, S.AssignStmt):
            self.foreign[id(s.var)] = (_what(s.value), s.span)
            target = written_tensor(s.value)
            if target is not None:
                self.aliases[id(s.var)] = (s.var, target)
        after = self.plan.fences_after.get(id(s))
        if after is not None and self.side is Side.AIC:
            out.extend(after.push_stmts())
        return out

    def transfer(self, b: T.Boundary) -> list[S.Stmt]:
        producer = Side.AIC if b.direction == T.C2V else Side.AIV
        if self.side is producer:
            self.foreign[id(b.result)] = (f"the {b.direction.upper()} boundary", b.span)
            source, pre = b.source, []
            if b.direction == T.V2C and self.plan.backend.requires_vtoc_fractal_adapt and not T.is_nz(b.source.type):
                adapter = T.fractal_adapter(b.source, self.plan.fresh(f"{_name(b.source)}_nz"), b.span)
                source, pre = adapter.var, [adapter]
            return pre + [T.push(b.direction, source, b.code, b.lane_stride, b.span)]
        var = b.result
        if b.direction == T.V2C:
            return self.cube_pop(b)
        new_type = T.popped_type(var.type, self.plan.backend)
        if new_type is not var.type:
            new_var = E.Var(var.name_hint, new_type, var.span)
            self.retyped[id(var)] = (var, new_var)
            var = new_var
        return [T.pop(b.direction, var, b.code, b.lane_stride, b.span)]

    def cube_pop(self, b: T.Boundary) -> list[S.Stmt]:
        """V->C on the AIC: the pop always lands in Mat (docs/passes/expand_mixed_kernel.md, transfers). A Mat
        destination is popped into directly (retyped Mat when it was declared elsewhere: a gather bound to a Vec
        annotation); any other cube space pops into `<dst>_mat`, then moves it to the destination with the
        destination's layouts (its tfree follows that move)."""
        var = b.result
        t = var.type
        if not isinstance(t, TileType) or t.memory_space is MemorySpace.Mat:
            return [T.pop(T.V2C, var, b.code, None, b.span)]
        if t.memory_space is MemorySpace.Vec:  # a gather annotated Vec: the pop is the gather's own Var, in Mat
            own = E.Var(var.name_hint, T.mat_type(t), var.span)
            self.retyped[id(var)] = (var, own)
            return [T.pop(T.V2C, own, b.code, None, b.span)]
        mat = E.Var(self.plan.fresh(f"{var.name_hint}_mat"), T.mat_type(t), b.span)
        return [T.pop(T.V2C, mat, b.code, None, b.span), T.move_out_of_mat(mat, var, b.span)]

    def substitution(self) -> dict[E.Var, E.Expr]:
        """Retyped pops, and every foreign store result mapped to the tensor it aliases (transitively)."""
        mapping: dict[E.Var, E.Expr] = {old: new for old, new in self.retyped.values()}

        def resolve(e: E.Expr, depth: int = 0) -> E.Expr:
            hit = self.aliases.get(id(e)) if isinstance(e, E.Var) else None
            return e if hit is None or depth > len(self.aliases) else resolve(hit[1], depth + 1)

        for var, _ in self.aliases.values():
            mapping[var] = resolve(var)
        return mapping


def carriers_of(loop: S.ForStmt | S.WhileStmt) -> dict[int, E.Var]:
    """id(variable the loop's trailing yield passes on) -> the iter arg carrying it."""
    stmts = flatten_to_stmts(loop.body)
    if not stmts or not isinstance(stmts[-1], S.YieldStmt):
        return {}
    return {id(v): ia for v, ia in zip(stmts[-1].value, loop.iter_args) if isinstance(v, E.Var)}


def _name(e: E.Expr) -> str:
    return e.name_hint if isinstance(e, E.Var) else "tile"


def _what(value: E.Expr) -> str:
    return value.op.name if isinstance(value, E.Call) else "a scalar expression"

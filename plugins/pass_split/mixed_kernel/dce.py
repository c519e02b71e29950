"""Dead code of one core's body (docs/passes/expand_mixed_kernel.md, placement): what the other core's statements needed and this core
does not. A backward liveness walk over the structured SSA body; an op's side effects are asked of the
registry (a written argument, a cross-core role, no-duplicate, a statement op), a function call is assumed
to have some. A loop or if keeps only the carried / merged slots something live reads, and disappears when
nothing is left of it.
"""

from __future__ import annotations

from pypto_core.ir import expr as E
from pypto_core.ir import stmt as S
from pypto_core.ir.types import UnknownType
from pypto_core.ir.utils import flatten_to_stmts, make_body
from pypto_core.ir.visitor import IRVisitor
from pypto_core.ops.opdef import Effect
from pypto_core.ops.registry import opdef_of


class _Uses(IRVisitor):
    def __init__(self, into: set[int]) -> None:
        self.into = into

    def visit_var_like(self, var: E.Var) -> None:
        self.into.add(id(var))
        super().visit_var_like(var)


def add_uses(into: set[int], *nodes: object) -> set[int]:
    """Add the ids of the variables `nodes` read (dims and valid extents in their types included)."""
    walker = _Uses(into)
    for node in nodes:
        if node is not None:
            walker.visit(node)
    return into


def has_side_effect(e: E.Expr) -> bool:
    if not isinstance(e, E.Call):
        return False
    if isinstance(e.op, E.GlobalVar):
        return True
    opdef = opdef_of(e)
    if opdef is None or opdef.cross_core_role is not None or opdef.no_duplicate:
        return True
    if isinstance(e.type, UnknownType):
        return True  # a statement op: a barrier, a sync, a setup
    return any(effect in (Effect.WRITE, Effect.READ_WRITE) for effect in opdef.arg_effects(e.kwargs).values())


def _split_yield(body: S.Stmt) -> tuple[list[S.Stmt], S.YieldStmt | None]:
    stmts = flatten_to_stmts(body)
    if stmts and isinstance(stmts[-1], S.YieldStmt):
        return stmts[:-1], stmts[-1]
    return stmts, None


def _branch_yielded(stmts: list[S.Stmt]) -> set[int]:
    """Ids of the variables the trailing yields of if branches in `stmts` pass on (not inside nested loops)."""
    found: set[int] = set()
    for s in stmts:
        if isinstance(s, S.IfStmt):
            for body in (s.then_body, s.else_body):
                inner, yielded = _split_yield(body) if body is not None else ([], None)
                if yielded is not None:
                    found.update(id(v) for v in yielded.value if isinstance(v, E.Var))
                found |= _branch_yielded(inner)
        elif isinstance(s, S.ScopeStmt):
            found |= _branch_yielded(flatten_to_stmts(s.body))
    return found


class DeadCode:
    def __init__(self) -> None:
        self.changed = False

    def block(self, stmts: list[S.Stmt], live: set[int]) -> list[S.Stmt]:
        """`live`: the variables read after the block; on return, those read before it."""
        kept: list[S.Stmt] = []
        for s in reversed(stmts):
            new = self.stmt(s, live)
            if new is None:
                self.changed = True
            else:
                kept.append(new)
        kept.reverse()
        return kept

    def stmt(self, s: S.Stmt, live: set[int]) -> S.Stmt | None:
        if isinstance(s, S.AssignStmt):
            if id(s.var) not in live and not has_side_effect(s.value):
                return None
            live.discard(id(s.var))
            add_uses(live, s.value, s.var.type)
            return s
        if isinstance(s, S.EvalStmt):
            if not has_side_effect(s.expr):
                return None
            add_uses(live, s.expr)
            return s
        if isinstance(s, (S.ReturnStmt, S.YieldStmt)):
            add_uses(live, *s.value)
            return s
        if isinstance(s, (S.ForStmt, S.WhileStmt)):
            return self.loop(s, live)
        if isinstance(s, S.IfStmt):
            return self.if_stmt(s, live)
        if isinstance(s, S.ScopeStmt):
            return s.with_fields(body=make_body(self.block(flatten_to_stmts(s.body), live), s.body.span))
        return s  # break, continue

    def loop(self, s: S.ForStmt | S.WhileStmt, live: set[int]) -> S.Stmt | None:
        stmts, yielded = _split_yield(s.body)
        n = len(s.iter_args)
        slots = {i for i in range(n) if id(s.return_vars[i]) in live}
        branch_yields = _branch_yielded(stmts)  # a carry an if branch yields is used in the body: it stays
        slots |= {i for i in range(n) if id(s.iter_args[i]) in branch_yields}
        if isinstance(s, S.WhileStmt):
            cond = add_uses(set(), s.condition)
            slots |= {i for i in range(n) if id(s.iter_args[i]) in cond}
        while True:
            body_live: set[int] = set()
            if yielded is not None:
                add_uses(body_live, *(yielded.value[i] for i in slots))
            if isinstance(s, S.WhileStmt):
                add_uses(body_live, s.condition)
            trial = DeadCode()
            new_stmts = trial.block(stmts, body_live)
            more = {i for i in range(n) if i not in slots and id(s.iter_args[i]) in body_live}
            if not more:
                break
            slots |= more
        if not slots and not new_stmts:
            return None
        self.changed = self.changed or trial.changed or len(slots) < n
        keep = sorted(slots)
        body = list(new_stmts)
        if yielded is not None and keep:  # a loop carrying nothing ends without a yield (no `pl.yield_()`)
            body.append(yielded.with_fields(value=tuple(yielded.value[i] for i in keep)))
        iter_args = [s.iter_args[i] for i in keep]
        return_vars = [s.return_vars[i] for i in keep]
        defined = {id(v) for v in iter_args}
        if isinstance(s, S.ForStmt):
            defined.add(id(s.loop_var))
            add_uses(live, s.start, s.stop, s.step)
        for v in return_vars:
            live.discard(id(v))
        live |= body_live - defined
        add_uses(live, *(ia.initValue for ia in iter_args), *(ia.type for ia in iter_args))
        return s.with_fields(body=make_body(body, s.body.span), iter_args=tuple(iter_args),
                             return_vars=tuple(return_vars))

    def if_stmt(self, s: S.IfStmt, live: set[int]) -> S.Stmt | None:
        n = len(s.return_vars)
        slots = sorted(i for i in range(n) if id(s.return_vars[i]) in live)
        branches: list[S.Stmt | None] = []
        branch_live: set[int] = set()
        empty = True
        for body in (s.then_body, s.else_body):
            if body is None:
                branches.append(None)
                continue
            stmts, yielded = _split_yield(body)
            inner: set[int] = set()
            if yielded is not None:
                add_uses(inner, *(yielded.value[i] for i in slots))
            new_stmts = self.block(stmts, inner)
            empty = empty and not new_stmts
            if yielded is not None and slots:  # an if merging nothing has no yields
                new_stmts.append(yielded.with_fields(value=tuple(yielded.value[i] for i in slots)))
            if not new_stmts and body is s.else_body:
                branches.append(None)  # an empty else is no else
                continue
            branches.append(make_body(new_stmts, body.span))
            branch_live |= inner
        if not slots and empty:
            return None
        self.changed = self.changed or len(slots) < n
        for v in s.return_vars:
            live.discard(id(v))
        live |= branch_live
        add_uses(live, s.condition)
        return s.with_fields(then_body=branches[0], else_body=branches[1],
                             return_vars=tuple(s.return_vars[i] for i in slots))


def remove_dead_code(stmts: list[S.Stmt]) -> tuple[list[S.Stmt], bool]:
    dce = DeadCode()
    out = dce.block(stmts, set())
    return out, dce.changed

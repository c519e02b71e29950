"""Loop-carried state after a side dropped the other core's statements (docs/passes/expand_mixed_kernel.md, placement).

A carry whose update went to the other core comes back as itself (`yield out_iter` once the store on the
other side was remapped to the tensor it wrote): it carries nothing on this side, so the slot goes and its
iter arg and result mean the initial value. An if whose branches now merge the same outside value likewise
merges nothing. The rest of the repair (slots nothing reads) is dead code (dce.py).
"""

from __future__ import annotations

from pypto_core.ir import expr as E
from pypto_core.ir import stmt as S
from pypto_core.ir.utils import flatten_to_stmts, make_body, substitute_stmt
from pypto_core.ir.visitor import IRVisitor


def _trailing_yield(body: S.Stmt | None) -> S.YieldStmt | None:
    stmts = flatten_to_stmts(body)
    return stmts[-1] if stmts and isinstance(stmts[-1], S.YieldStmt) else None


def _with_yield(body: S.Stmt, values: list[E.Expr]) -> S.Stmt:
    """The body with its trailing yield passing `values`; none left: no yield at all (no `pl.yield_()`)."""
    stmts = flatten_to_stmts(body)
    tail = [stmts[-1].with_fields(value=tuple(values))] if values else []
    return make_body(stmts[:-1] + tail, body.span)


class _Defined(IRVisitor):
    def __init__(self) -> None:
        self.ids: set[int] = set()

    def visit_assign_stmt(self, s: S.AssignStmt) -> None:
        self.ids.add(id(s.var))
        super().visit_assign_stmt(s)

    def visit_for_stmt(self, s: S.ForStmt) -> None:
        self.ids.update(id(v) for v in (s.loop_var, *s.iter_args, *s.return_vars))
        super().visit_for_stmt(s)

    def visit_while_stmt(self, s: S.WhileStmt) -> None:
        self.ids.update(id(v) for v in (*s.iter_args, *s.return_vars))
        super().visit_while_stmt(s)

    def visit_if_stmt(self, s: S.IfStmt) -> None:
        self.ids.update(id(v) for v in s.return_vars)
        super().visit_if_stmt(s)


def _defined_in(*bodies: S.Stmt | None) -> set[int]:
    walker = _Defined()
    for b in bodies:
        if b is not None:
            walker.visit_stmt(b)
    return walker.ids


class _Folder:
    def __init__(self) -> None:
        self.mapping: dict[E.Var, E.Expr] = {}
        self.carriers: dict[int, E.Var] = {}  # id(merged value a loop yield passes on) -> its iter arg

    def block(self, stmt: S.Stmt) -> S.Stmt:
        return make_body([self.stmt(s) for s in flatten_to_stmts(stmt)], stmt.span)

    def stmt(self, s: S.Stmt) -> S.Stmt:
        if isinstance(s, (S.ForStmt, S.WhileStmt)):
            yielded = _trailing_yield(s.body)
            if yielded is not None:  # a merge this loop carries keeps identity yields of its carrier
                self.carriers.update({id(v): ia for v, ia in zip(yielded.value, s.iter_args) if isinstance(v, E.Var)})
            return self.loop(s.with_fields(body=self.block(s.body)))
        if isinstance(s, S.IfStmt):
            then_body = self.block(s.then_body)
            else_body = None if s.else_body is None else self.block(s.else_body)
            return self.if_stmt(s.with_fields(then_body=then_body, else_body=else_body))
        if isinstance(s, S.ScopeStmt):
            return s.with_fields(body=self.block(s.body))
        return s

    def loop(self, s: S.ForStmt | S.WhileStmt) -> S.Stmt:
        yielded = _trailing_yield(s.body)
        if yielded is None:
            return s
        keep = [i for i, ia in enumerate(s.iter_args) if yielded.value[i] is not ia]
        if len(keep) == len(s.iter_args):
            return s
        for i, ia in enumerate(s.iter_args):
            if i not in keep:
                self.mapping[ia] = ia.initValue
                self.mapping[s.return_vars[i]] = ia.initValue
        return s.with_fields(iter_args=tuple(s.iter_args[i] for i in keep),
                             return_vars=tuple(s.return_vars[i] for i in keep),
                             body=_with_yield(s.body, [yielded.value[i] for i in keep]))

    def if_stmt(self, s: S.IfStmt) -> S.Stmt:
        then_yield, else_yield = _trailing_yield(s.then_body), _trailing_yield(s.else_body)
        if then_yield is None or else_yield is None or not s.return_vars:
            return s
        inside = _defined_in(s.then_body, s.else_body)
        keep: list[int] = []
        for i, rv in enumerate(s.return_vars):
            a, b = then_yield.value[i], else_yield.value[i]
            if a is b and a is self.carriers.get(id(rv)):
                keep.append(i)  # both branches yield the carry that carries this merge: it stays (a use of it)
            elif a is b and isinstance(a, E.Var) and id(a) not in inside:
                self.mapping[rv] = a
            else:
                keep.append(i)
        if len(keep) == len(s.return_vars):
            return s
        return s.with_fields(return_vars=tuple(s.return_vars[i] for i in keep),
                             then_body=_with_yield(s.then_body, [then_yield.value[i] for i in keep]),
                             else_body=_with_yield(s.else_body, [else_yield.value[i] for i in keep]))


def fold_identity_carries(stmts: list[S.Stmt]) -> tuple[list[S.Stmt], bool]:
    folder = _Folder()
    new = [folder.stmt(s) for s in stmts]
    if not folder.mapping:
        return stmts, False
    body = substitute_stmt(make_body(new), _resolved(folder.mapping))
    return flatten_to_stmts(body), True


def _resolved(mapping: dict[E.Var, E.Expr]) -> dict[E.Var, E.Expr]:
    """A carry's init may itself be a folded carry of an outer loop: map straight to the final value."""
    by_id = {id(k): v for k, v in mapping.items()}

    def final(e: E.Expr) -> E.Expr:
        seen = 0
        while id(e) in by_id and seen <= len(by_id):
            e, seen = by_id[id(e)], seen + 1
        return e

    return {k: final(v) for k, v in mapping.items()}

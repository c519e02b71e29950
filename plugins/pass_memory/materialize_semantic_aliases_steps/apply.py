"""Applying the plans (materialize_semantic_aliases.md 3.5): each planned variable is rebuilt with its new type
and substituted at every use; carries and loop / if results take theirs in their statement; a view whose source
moved (and shared the source's buffer) re-derives its MemRef on the new one (InitMemRef's offset rule)."""

from __future__ import annotations

from typing import Any

from pypto_core.ir import expr as E
from pypto_core.ir import stmt as S
from pypto_core.ir.types import TileType, Type
from pypto_core.ir.utils import Substituter
from pypto_plugins.pass_memory.init_mem_ref_steps.buffer_facts import view_kind
from pypto_plugins.pass_memory.init_mem_ref_steps.views import view_memref


class PlanApplier:
    def __init__(self, plans: dict[int, Type]) -> None:
        self.plans = plans
        self.subst = Substituter({})

    def retyped(self, var: E.Var, new_type: Type | None) -> E.Var:
        if new_type is None or new_type is var.type:
            return var
        new = var.with_fields(type=new_type)
        self.subst.mapping[id(var)] = new
        return new  # type: ignore[return-value]

    def stmt(self, stmt: S.Stmt) -> S.Stmt:
        if isinstance(stmt, S.SeqStmts):
            stmts = [self.stmt(s) for s in stmt.stmts]
            if all(a is b for a, b in zip(stmts, stmt.stmts)):
                return stmt
            return S.SeqStmts(stmts, stmt.span, stmt.leading_comments)
        if isinstance(stmt, S.AssignStmt):
            return self.assign(stmt)
        if isinstance(stmt, (S.ForStmt, S.WhileStmt)):
            return self.loop(stmt)
        if isinstance(stmt, S.IfStmt):
            then_body = self.stmt(stmt.then_body)
            else_body = self.stmt(stmt.else_body) if stmt.else_body is not None else None
            return_vars = tuple(self.retyped(rv, self.plans.get(id(rv))) for rv in stmt.return_vars)
            return stmt.with_fields(condition=self.subst.visit_expr(stmt.condition), then_body=then_body,
                                    else_body=else_body, return_vars=return_vars)  # type: ignore[return-value]
        if isinstance(stmt, S.ScopeStmt):
            return stmt.with_fields(body=self.stmt(stmt.body))  # type: ignore[return-value]
        return self.subst.visit_stmt(stmt)

    def assign(self, stmt: S.AssignStmt) -> S.Stmt:
        value = self.subst.visit_expr(stmt.value)
        new_type = self.plans.get(id(stmt.var)) or self._rederived_view(stmt, value)
        var = self.retyped(stmt.var, new_type)
        if var is stmt.var and value is stmt.value:
            return stmt
        return S.AssignStmt(var, value, stmt.span, stmt.leading_comments)

    def _rederived_view(self, stmt: S.AssignStmt, value: E.Expr) -> Type | None:
        """A view of a moved tile that shared the tile's buffer follows it onto the new one."""
        kind = view_kind(value)
        t = stmt.var.type
        if not kind or not isinstance(t, TileType) or t.memref is None or value is stmt.value:
            return None
        assert isinstance(value, E.Call) and isinstance(stmt.value, E.Call)
        old_source, new_source = stmt.value.args[0], value.args[0]
        if old_source is new_source or not isinstance(new_source.type, TileType):
            return None
        old_memref, new_memref = old_source.type.memref, new_source.type.memref
        if old_memref is None or new_memref is None or old_memref.base is not t.memref.base:
            return None
        return t.with_fields(memref=view_memref(value, new_source.type, kind))  # type: ignore[return-value]

    def loop(self, stmt: Any) -> S.Stmt:
        iter_args = []
        for ia in stmt.iter_args:
            init = self.subst.visit_expr(ia.initValue)
            new_type = self.plans.get(id(ia), ia.type)
            if init is ia.initValue and new_type is ia.type:
                iter_args.append(ia)
                continue
            new = ia.with_fields(type=new_type, initValue=init)
            self.subst.mapping[id(ia)] = new
            iter_args.append(new)
        changes: dict[str, Any] = {"iter_args": tuple(iter_args)}
        if isinstance(stmt, S.ForStmt):
            changes.update(start=self.subst.visit_expr(stmt.start), stop=self.subst.visit_expr(stmt.stop),
                           step=self.subst.visit_expr(stmt.step))
        else:
            changes["condition"] = self.subst.visit_expr(stmt.condition)
        changes["body"] = self.stmt(stmt.body)
        changes["return_vars"] = tuple(self.retyped(rv, self.plans.get(id(rv))) for rv in stmt.return_vars)
        return stmt.with_fields(**changes)  # type: ignore[no-any-return]

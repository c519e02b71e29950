"""One ordered walk over statements reporting definitions and uses as they execute.

Values are walked before the variables they bind (so `c = store(t, [0, 0], c)` reads `c` first), and
types at definition sites and call results are walked too (a dim may name a variable).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from pypto_core.ir import expr as E
from pypto_core.ir import stmt as S
from pypto_core.ir.node import IRNode
from pypto_core.ir.types import Type

Use = Callable[[E.Var], None]
Define = Callable[[E.Var], None]


class OrderedWalk:
    """Calls `on_use(var)` for each use and `on_def(var)` for each definition, in execution order."""

    def __init__(self, on_use: Use, on_def: Define, skip_attr_vars: bool = True) -> None:
        self.on_use = on_use
        self.on_def = on_def
        self.skip_attr_vars = skip_attr_vars

    def stmts(self, stmts: Iterable[S.Stmt]) -> None:
        for s in stmts:
            self.stmt(s)

    def stmt(self, s: S.Stmt | None) -> None:
        if s is None:
            return
        if isinstance(s, S.SeqStmts):
            self.stmts(s.stmts)
        elif isinstance(s, S.AssignStmt):
            self.expr(s.value)
            self.define(s.var)
        elif isinstance(s, S.ForStmt):
            for e in (s.start, s.stop, s.step):
                self.expr(e)
            for a in s.iter_args:
                self.expr(a.initValue)
            self.define(s.loop_var)
            for a in s.iter_args:
                self.define(a)
            self.stmt(s.body)
            for r in s.return_vars:
                self.define(r)
        elif isinstance(s, S.WhileStmt):
            for a in s.iter_args:
                self.expr(a.initValue)
            for a in s.iter_args:
                self.define(a)
            self.expr(s.condition)
            self.stmt(s.body)
            for r in s.return_vars:
                self.define(r)
        elif isinstance(s, S.IfStmt):
            self.expr(s.condition)
            self.stmt(s.then_body)
            self.stmt(s.else_body)
            for r in s.return_vars:
                self.define(r)
        elif isinstance(s, S.ScopeStmt):
            if not self.skip_attr_vars:
                self.value(s.attrs)
            self.stmt(s.body)
        elif isinstance(s, (S.EvalStmt,)):
            self.expr(s.expr)
        elif isinstance(s, (S.ReturnStmt, S.YieldStmt)):
            for e in s.value:
                self.expr(e)

    def define(self, v: E.Var) -> None:
        self.type(v.type)
        self.on_def(v)

    def expr(self, e: E.Expr) -> None:
        if isinstance(e, E.Var):
            self.on_use(e)
            return
        if isinstance(e, E.Call):
            for a in e.args:
                if isinstance(a, E.Var):  # the usual argument, without a call of expr()
                    self.on_use(a)
                else:
                    self.expr(a)
            if e.kwargs:  # nothing to walk in an empty dict
                self.value(e.kwargs)
            if e.type.has_vars:
                self.type(e.type)
            return
        for spec in e.COMPARED_FIELDS:
            if spec.name != "type":
                self.value(getattr(e, spec.name))

    def type(self, t: Type) -> None:
        if not t.has_vars:
            return
        for spec in t.COMPARED_FIELDS:
            self.value(getattr(t, spec.name))

    def value(self, v: Any) -> None:
        if isinstance(v, E.Expr):
            self.expr(v)
        elif isinstance(v, Type):
            self.type(v)
        elif isinstance(v, IRNode):
            for spec in v.COMPARED_FIELDS:
                self.value(getattr(v, spec.name))
        elif isinstance(v, (list, tuple)):
            for x in v:
                self.value(x)
        elif isinstance(v, dict):
            for x in v.values():
                self.value(x)


def count_uses(stmt: S.Stmt, counts: dict[int, int] | None = None) -> dict[int, int]:
    """Number of uses of each variable (by id) in a statement tree."""
    counts = counts if counts is not None else {}

    def on_use(v: E.Var) -> None:
        counts[id(v)] = counts.get(id(v), 0) + 1

    OrderedWalk(on_use, lambda v: None, skip_attr_vars=False).stmt(stmt)
    return counts

"""`ib.if_stmt(...)` and `ib.scope(...)` (docs/ir_builder.md): IfStmtBuilder and ScopeBuilder."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pypto_core.ir.builder.frame import BuilderFrame
from pypto_core.ir.builder.values import body_of, caller_span, expr_of
from pypto_core.ir.enums import Level, Role, ScopeKind, SplitMode
from pypto_core.ir.expr import Expr, Var
from pypto_core.ir.span import Span
from pypto_core.ir.stmt import (
    ClusterScopeStmt,
    HierarchyScopeStmt,
    IfStmt,
    InCoreScopeStmt,
    ScopeStmt,
    SplitAivScopeStmt,
    SpmdScopeStmt,
    Stmt,
)
from pypto_core.ir.types import Type

if TYPE_CHECKING:
    from pypto_core.ir.builder.ir_builder import IRBuilder


class IfStmtBuilder(BuilderFrame):
    """Statements go to the then branch until `else_()`, then to the else branch. Return vars are declared
    with `return_var` (which returns None) and read after the block with `output(i)` / `outputs()`."""

    kind = "if"

    def __init__(self, builder: IRBuilder, condition: Any, span: Span) -> None:
        super().__init__(builder, span)
        self.condition: Expr = expr_of(condition, span)
        self._then: list[Stmt] = []
        self._else: list[Stmt] | None = None
        self._else_span: Span | None = None
        self._return_vars: list[Var] = []

    def _begin(self) -> None:
        self._builder._require_statement_context("begin if")

    def else_(self, span: Span | None = None) -> None:
        """Start the else branch (an else branch left empty means no else body)."""
        self._require_open("else_")
        if self._else is not None:
            raise ValueError(f"Cannot begin else branch: already in else branch of the if at "
                             f"{self.span.to_string()} (begun at {self._else_span.to_string()})")  # type: ignore[union-attr]
        innermost = self._builder._stack[-1]
        if innermost is not self:
            raise RuntimeError(f"Cannot begin else branch of the if at {self.span.to_string()}: the innermost "
                               f"context is the {innermost.describe()}; close it first")
        self._else = []
        self._else_span = span or caller_span()

    def return_var(self, name: str, type: Type, span: Span | None = None) -> None:  # noqa: A002 - PyPTO's keyword
        """Declare a value the if gives (its type is required); read it after the block with output()."""
        self._require_open("return_var")
        if not isinstance(type, Type):
            raise TypeError(f"return_var '{name}' of an if needs an ir type, got {type!r}")
        self._return_vars.append(Var(name, type, span or caller_span()))

    def add_stmt(self, stmt: Stmt) -> None:
        (self._then if self._else is None else self._else).append(stmt)

    def output(self, index: int = 0) -> Var:
        self._require_done("output")
        if not -len(self._return_vars) <= index < len(self._return_vars):
            raise IndexError(f"output index {index} out of range: the if has {len(self._return_vars)} "
                             f"return variable(s)")
        return self._return_vars[index]

    def outputs(self) -> list[Var]:
        self._require_done("outputs")
        return list(self._return_vars)

    def _finish(self) -> IfStmt:
        else_body = body_of(self._else, self._else_span or self.span) if self._else else None
        node = IfStmt(self.condition, body_of(self._then, self.span), else_body, self._return_vars, self.span)
        self._builder.emit(node)
        return node


# The keyword arguments of ib.scope(...) each scope kind takes (the rest must stay unset).
_SCOPE_KEYWORDS: dict[ScopeKind, tuple[str, ...]] = {
    ScopeKind.InCore: ("split",),
    ScopeKind.SplitAiv: ("split",),
    ScopeKind.Hierarchy: ("level", "role"),
    ScopeKind.Cluster: (),
    ScopeKind.Spmd: ("core_num", "sync_start"),
}


class ScopeBuilder(BuilderFrame):
    """An `ir.ScopeStmt` of one kind (InCore, SplitAiv, Hierarchy, Cluster, Spmd) around the statements
    emitted inside the block."""

    kind = "scope"

    def __init__(self, builder: IRBuilder, scope_kind: ScopeKind, span: Span, name_hint: str,
                 attrs: Mapping[str, Any] | None, keywords: dict[str, Any]) -> None:
        super().__init__(builder, span)
        self.scope_kind = ScopeKind(scope_kind)
        allowed = _SCOPE_KEYWORDS.get(self.scope_kind)
        if allowed is None:
            raise ValueError(f"ib.scope: pypto has no {self.scope_kind.name} scope node; the kinds it builds are "
                             f"{', '.join(k.name for k in _SCOPE_KEYWORDS)}")
        given = sorted(k for k, v in keywords.items() if v is not None and k not in allowed)
        if given:
            takes = ", ".join(f"{k}=" for k in allowed) or "none of them"
            raise ValueError(f"ib.scope: a {self.scope_kind.name} scope does not take {', '.join(given)}= "
                             f"(it takes {takes})")
        if self.scope_kind is ScopeKind.SplitAiv and keywords.get("split") is None:
            raise ValueError("ib.scope: a SplitAiv scope needs split= (an ir.SplitMode: NONE, UP_DOWN or LEFT_RIGHT)")
        if self.scope_kind is ScopeKind.Hierarchy and keywords.get("level") is None:
            raise ValueError("ib.scope: a Hierarchy scope needs level= (an ir.Level)")
        if self.scope_kind is ScopeKind.Spmd and keywords.get("core_num") is None:
            raise ValueError("ib.scope: a Spmd scope needs core_num= (the number of SPMD blocks)")
        self.name_hint = name_hint
        self.attrs = dict(attrs or {})
        self._keywords = keywords
        self._stmts: list[Stmt] = []

    def describe(self) -> str:
        return f"{self.scope_kind.name} scope at {self.span.to_string()}"

    def _begin(self) -> None:
        self._builder._require_statement_context(f"begin {self.scope_kind.name} scope")

    def add_stmt(self, stmt: Stmt) -> None:
        self._stmts.append(stmt)

    def _finish(self) -> ScopeStmt:
        body, span, kw = body_of(self._stmts, self.span), self.span, self._keywords
        common: dict[str, Any] = {"body": body, "span": span, "attrs": self.attrs}
        node: ScopeStmt
        if self.scope_kind is ScopeKind.InCore:
            node = InCoreScopeStmt(kw.get("split") or SplitMode.NONE, self.name_hint, **common)
        elif self.scope_kind is ScopeKind.SplitAiv:
            node = SplitAivScopeStmt(kw["split"], 2, self.name_hint, **common)
        elif self.scope_kind is ScopeKind.Hierarchy:
            node = HierarchyScopeStmt(Level(kw["level"]), None if kw.get("role") is None else Role(kw["role"]),
                                      self.name_hint, **common)
        elif self.scope_kind is ScopeKind.Cluster:
            node = ClusterScopeStmt(self.name_hint, **common)
        else:
            node = SpmdScopeStmt(kw["core_num"], bool(kw.get("sync_start")), self.name_hint, **common)
        self._builder.emit(node)
        return node

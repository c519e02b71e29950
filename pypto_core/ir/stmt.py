"""IR statements and scopes (docs/architecture.md, the core)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pypto_core.ir.enums import ForKind, Level, Role, ScopeKind, SplitMode
from pypto_core.ir.expr import Expr, IterArg, Var
from pypto_core.ir.node import Def, FieldSeq, Ignored, IRNode, Usual
from pypto_core.ir.span import Span

_NO_COMMENTS = FieldSeq()  # shared by the many statements without comments (immutable)


def _attrs(value: Mapping[str, Any] | Sequence[tuple[str, Any]] | None) -> dict[str, Any]:
    if value is None:
        return {}
    if type(value) is dict:  # the usual case, without the slower ABC check below
        return dict(value)
    if isinstance(value, Mapping):
        return dict(value)
    return {str(k): v for k, v in value}


def _split_mode(value: Any) -> SplitMode:
    return value if type(value) is SplitMode else SplitMode(value)  # an Enum call costs more than the check


class Stmt(IRNode):
    """Base of statements. `leading_comments` are printed above the statement, never compared."""

    fields = (Ignored("span"), Ignored("leading_comments"))

    def _base(self, span: Span | None, leading_comments: Sequence[str] | None = None, **values: Any) -> None:
        """Set the common fields and the subclass's `values` (one `_init`: node construction is hot)."""
        self._init(span=span or Span.unknown(),
                   leading_comments=FieldSeq(leading_comments) if leading_comments else _NO_COMMENTS, **values)

    def with_comments(self, comments: Sequence[str]) -> Stmt:
        return self.with_fields(leading_comments=tuple(comments))  # type: ignore[return-value]


class AssignStmt(Stmt):
    fields = (Def("var"), Usual("value"))

    def __init__(self, var: Var, value: Expr, span: Span | None = None,
                 leading_comments: Sequence[str] | None = None) -> None:
        if not isinstance(var, Var):
            raise TypeError(f"AssignStmt target must be a Var, got {type(var).__name__}")
        if not isinstance(value, Expr):
            raise TypeError(f"AssignStmt value must be an Expr, got {type(value).__name__}")
        self._base(span, leading_comments, var=var, value=value)


class EvalStmt(Stmt):
    fields = (Usual("expr"),)

    def __init__(self, expr: Expr, span: Span | None = None, leading_comments: Sequence[str] | None = None) -> None:
        self._base(span, leading_comments, expr=expr)


def _value_list(value_list: Any, span: Span | None) -> tuple[tuple[Expr, ...], Span | None]:
    if isinstance(value_list, Span):
        return (), value_list
    if value_list is None:
        return (), span
    return tuple(value_list), span


class ReturnStmt(Stmt):
    fields = (Usual("value"),)

    def __init__(self, value_list: Sequence[Expr] | Span | None = None, span: Span | None = None,
                 leading_comments: Sequence[str] | None = None) -> None:
        values, span = _value_list(value_list, span)
        self._base(span, leading_comments, value=values)


class YieldStmt(Stmt):
    fields = (Usual("value"),)

    def __init__(self, value_list: Sequence[Expr] | Span | None = None, span: Span | None = None,
                 leading_comments: Sequence[str] | None = None) -> None:
        values, span = _value_list(value_list, span)
        self._base(span, leading_comments, value=values)


class SeqStmts(Stmt):
    fields = (Usual("stmts"),)

    def __init__(self, stmts: Sequence[Stmt], span: Span | None = None,
                 leading_comments: Sequence[str] | None = None) -> None:
        self._base(span, leading_comments, stmts=tuple(stmts))

    def __getitem__(self, i: int) -> Stmt:
        return self.stmts[i]

    def __len__(self) -> int:
        return len(self.stmts)


class IfStmt(Stmt):
    fields = (Usual("condition"), Usual("then_body"), Usual("else_body"), Def("return_vars"))

    def __init__(self, condition: Expr, then_body: Stmt, else_body: Stmt | None = None,
                 return_vars: Sequence[Var] = (), span: Span | None = None,
                 leading_comments: Sequence[str] | None = None) -> None:
        self._base(span, leading_comments, condition=condition, then_body=then_body, else_body=else_body,
                   return_vars=tuple(return_vars))


class ForStmt(Stmt):
    fields = (Def("loop_var"), Usual("start"), Usual("stop"), Usual("step"), Def("iter_args"), Usual("body"),
              Def("return_vars"), Usual("kind"), Usual("attrs"))

    def __init__(self, loop_var: Var, start: Expr, stop: Expr, step: Expr, iter_args: Sequence[IterArg],
                 body: Stmt, return_vars: Sequence[Var], span: Span | None = None,
                 kind: ForKind = ForKind.Sequential, attrs: Mapping[str, Any] | None = None,
                 leading_comments: Sequence[str] | None = None) -> None:
        from pypto_core.ir.scalar_ops import as_expr

        self._base(span, leading_comments, loop_var=loop_var, start=as_expr(start), stop=as_expr(stop),
                   step=as_expr(step), iter_args=tuple(iter_args), body=body, return_vars=tuple(return_vars),
                   kind=kind, attrs=_attrs(attrs))


class WhileStmt(Stmt):
    fields = (Def("iter_args"), Usual("condition"), Usual("body"), Def("return_vars"))

    def __init__(self, condition: Expr, iter_args: Sequence[IterArg], body: Stmt, return_vars: Sequence[Var],
                 span: Span | None = None, leading_comments: Sequence[str] | None = None) -> None:
        self._base(span, leading_comments, condition=condition, iter_args=tuple(iter_args), body=body,
                   return_vars=tuple(return_vars))


class BreakStmt(Stmt):
    fields = ()

    def __init__(self, span: Span | None = None, leading_comments: Sequence[str] | None = None) -> None:
        self._base(span, leading_comments)


class ContinueStmt(Stmt):
    fields = ()

    def __init__(self, span: Span | None = None, leading_comments: Sequence[str] | None = None) -> None:
        self._base(span, leading_comments)


class ScopeStmt(Stmt):
    """Abstract base of scopes: `isinstance(x, ScopeStmt)` works for every kind (docs/architecture.md, the core)."""

    fields = (Usual("name_hint"), Usual("body"), Usual("attrs"))
    scope_kind: ScopeKind


class InCoreScopeStmt(ScopeStmt):
    fields = (Usual("split"),)
    scope_kind = ScopeKind.InCore

    def __init__(self, split: SplitMode = SplitMode.NONE, name_hint: str = "", *, body: Stmt,
                 span: Span | None = None, attrs: Mapping[str, Any] | Sequence[tuple[str, Any]] | None = None,
                 leading_comments: Sequence[str] | None = None) -> None:
        self._base(span, leading_comments, split=_split_mode(split), name_hint=name_hint, body=body,
                   attrs=_attrs(attrs))


class SplitAivScopeStmt(ScopeStmt):
    fields = (Usual("split"), Usual("count"))
    scope_kind = ScopeKind.SplitAiv

    def __init__(self, split: SplitMode, count: int = 2, name_hint: str = "", *, body: Stmt,
                 span: Span | None = None, attrs: Mapping[str, Any] | Sequence[tuple[str, Any]] | None = None,
                 leading_comments: Sequence[str] | None = None) -> None:
        self._base(span, leading_comments, split=_split_mode(split), count=int(count), name_hint=name_hint,
                   body=body, attrs=_attrs(attrs))


class HierarchyScopeStmt(ScopeStmt):
    fields = (Usual("level"), Usual("role"))
    scope_kind = ScopeKind.Hierarchy

    def __init__(self, level: Level, role: Role | None = None, name_hint: str = "", *, body: Stmt,
                 span: Span | None = None, attrs: Mapping[str, Any] | Sequence[tuple[str, Any]] | None = None,
                 leading_comments: Sequence[str] | None = None) -> None:
        self._base(span, leading_comments, level=level, role=role, name_hint=name_hint, body=body,
                   attrs=_attrs(attrs))


class ClusterScopeStmt(ScopeStmt):
    fields = ()
    scope_kind = ScopeKind.Cluster

    def __init__(self, name_hint: str = "", *, body: Stmt, span: Span | None = None,
                 attrs: Mapping[str, Any] | Sequence[tuple[str, Any]] | None = None,
                 leading_comments: Sequence[str] | None = None) -> None:
        self._base(span, leading_comments, name_hint=name_hint, body=body, attrs=_attrs(attrs))


class SpmdScopeStmt(ScopeStmt):
    """`with pl.spmd(core_num):` (docs/architecture.md, the core): the body runs as `core_num` SPMD blocks. The parser never
    builds one (spmd is out of scope); IR built directly and the walkers / printer handle it."""

    fields = (Usual("core_num"), Usual("sync_start"))
    scope_kind = ScopeKind.Spmd

    def __init__(self, core_num: Expr | int, sync_start: bool = False, name_hint: str = "", *, body: Stmt,
                 span: Span | None = None, attrs: Mapping[str, Any] | Sequence[tuple[str, Any]] | None = None,
                 leading_comments: Sequence[str] | None = None) -> None:
        from pypto_core.ir.scalar_ops import as_expr

        self._base(span, leading_comments, core_num=as_expr(core_num), sync_start=bool(sync_start),
                   name_hint=name_hint, body=body, attrs=_attrs(attrs))


__all__ = [
    "Stmt", "AssignStmt", "EvalStmt", "ReturnStmt", "YieldStmt", "SeqStmts", "IfStmt", "ForStmt", "WhileStmt",
    "BreakStmt", "ContinueStmt", "ScopeStmt", "InCoreScopeStmt", "SplitAivScopeStmt", "HierarchyScopeStmt",
    "ClusterScopeStmt", "SpmdScopeStmt",
]

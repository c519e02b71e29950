"""Escaping variables: a value first defined inside a loop body or one if branch and used after it.

The DSL never builds this shape for a value it cannot carry (ConvertToSSA rejects it), but passes and
tests that build IR directly do (e.g. `out_0 = tile.store(t, [i, 0], out)` in a loop, `return out_0`).
PyPTO promotes such a variable (docs/passes/convert_to_ssa.md, what it does): a loop gets a carry for it, an if a phi
whose other branch yields the value visible before the if.

Which value is "visible before the statement with the same type" when several are: the one whose
buffer the escaping value *is* -- its in-place write target, followed through copies and writes
(`pypto_core.analysis.lineage`, docs/passes/outline_incore_scopes.md, parameters); in PyPTO's test that is the Out parameter the
value flows to. It is the only choice that gives the program's own meaning on the path where the body
did not run (a zero-trip loop, the other branch: the store never happened, the buffer is unchanged).
Any other same-typed value would silently invent a value where the program left it undefined, so
without a write target the promotion is refused with a located error naming the fix.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from pypto_core.analysis.lineage import Lineage
from pypto_core.ir import expr as E
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import ScopeKind
from pypto_core.ir.structural import structural_equal
from pypto_core.ir.types import Type


class EscapeSignal(Exception):  # noqa: N818 - a control-flow signal, not an error
    """One conversion attempt met `var` used after `stmt`, which defines it: retry promoting it there."""

    def __init__(self, var: E.Var, stmt: S.Stmt) -> None:
        super().__init__(var.name_hint)
        self.var = var
        self.stmt = stmt


@dataclass(frozen=True)
class ScopedOut:
    """Why a variable is not visible any more: `stmt` (a loop or an if) defined it only inside."""

    where: str
    stmt: S.Stmt
    loop_var: bool = False


def bodies(stmt: S.Stmt) -> list[S.Stmt]:
    """The bodies of a loop or an if, in execution order."""
    if isinstance(stmt, S.IfStmt):
        return [stmt.then_body] + ([stmt.else_body] if stmt.else_body is not None else [])
    if isinstance(stmt, (S.ForStmt, S.WhileStmt)):
        return [stmt.body]
    return []


def _defs_in_order(s: S.Stmt | None, scope: S.ScopeStmt | None) -> Iterator[tuple[E.Var, S.ScopeStmt | None]]:
    """Every variable definition under `s` in program order, with the outermost non-runtime scope around it."""
    if s is None:
        return
    if isinstance(s, S.SeqStmts):
        for child in s.stmts:
            yield from _defs_in_order(child, scope)
    elif isinstance(s, S.AssignStmt):
        yield s.var, scope
    elif isinstance(s, S.ScopeStmt):
        runtime = getattr(s, "scope_kind", None) is ScopeKind.Runtime  # a runtime scope is no boundary
        inner = scope if scope is not None or runtime else s
        yield from _defs_in_order(s.body, inner)
    elif isinstance(s, (S.ForStmt, S.WhileStmt, S.IfStmt)):
        for body in bodies(s):
            yield from _defs_in_order(body, scope)
        for rv in s.return_vars:
            yield rv, scope


def blocking_scope(stmt: S.Stmt, var: E.Var) -> S.ScopeStmt | None:
    """The non-runtime scope inside `stmt` around `var`'s first definition there, if any.

    Promotion does not cross such a boundary (docs/passes/convert_to_ssa.md, errors): a value first defined in a scope body is
    that scope's own; a loop or if around the scope does not carry it out.
    """
    for body in bodies(stmt):
        for v, scope in _defs_in_order(body, None):
            if v is var:
                return scope
    return None


def flow_target(stmt: S.Stmt, var: E.Var) -> E.Var | None:
    """The variable whose buffer `var` is after `stmt`'s body ran (its write target, through copies)."""
    lineage = Lineage()
    for body in bodies(stmt):
        lineage.scan(body)
    root = lineage.root(var)
    return None if root is var else root


def same_type(a: Type, b: Type) -> bool:
    return structural_equal(a, b)

"""Where each variable of a function is defined, and the statements after it a retarget must check
(materialize_semantic_aliases.md 3.3 rule 6: later siblings in every enclosing block, outward up to and including
the body of the nearest enclosing loop; the other branch of an enclosing if is never scanned)."""

from __future__ import annotations

from dataclasses import dataclass

from pypto_core.ir import expr as E
from pypto_core.ir import stmt as S
from pypto_core.ir.utils import flatten_to_stmts

Frames = tuple[tuple[tuple[S.Stmt, ...], int], ...]  # (block, position of the statement in it), innermost last


@dataclass(frozen=True)
class Definition:
    kind: str  # "assign", "if_result", "loop_result", "iter_arg"
    stmt: S.Stmt
    index: int  # which result / carry of an if or loop
    frames: Frames


def index_definitions(body: S.Stmt) -> dict[int, Definition]:
    defs: dict[int, Definition] = {}
    _index(body, (), defs)
    return defs


def _index(body: S.Stmt | None, outer: Frames, defs: dict[int, Definition]) -> None:
    block = tuple(flatten_to_stmts(body))
    for i, stmt in enumerate(block):
        frames = (*outer, (block, i))
        if isinstance(stmt, S.AssignStmt):
            defs[id(stmt.var)] = Definition("assign", stmt, 0, frames)
        elif isinstance(stmt, (S.ForStmt, S.WhileStmt)):
            for k, ia in enumerate(stmt.iter_args):
                defs[id(ia)] = Definition("iter_arg", stmt, k, frames)
            for k, rv in enumerate(stmt.return_vars):
                defs[id(rv)] = Definition("loop_result", stmt, k, frames)
            _index(stmt.body, (), defs)  # a loop body is where the scan outward stops
        elif isinstance(stmt, S.IfStmt):
            for k, rv in enumerate(stmt.return_vars):
                defs[id(rv)] = Definition("if_result", stmt, k, frames)
            _index(stmt.then_body, frames, defs)
            _index(stmt.else_body, frames, defs)
        elif isinstance(stmt, S.ScopeStmt):
            _index(stmt.body, frames, defs)


def yielded(body: S.Stmt | None) -> tuple[E.Expr, ...]:
    """The values a block's trailing yield gives (none without one)."""
    stmts = flatten_to_stmts(body)
    return stmts[-1].value if stmts and isinstance(stmts[-1], S.YieldStmt) else ()

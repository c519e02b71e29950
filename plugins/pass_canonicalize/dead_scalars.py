"""Simplify's final cleanup (docs/passes/simplify.md, final cleanup): scalar bindings nothing reads, and if
results nothing reads, are dropped.

A scalar assignment is removable when its value calls nothing; it is dead when no kept statement reads
its variable, directly or through other removable assignments (loop bounds, conditions, carries' inits,
scope attrs and the types of binders all read). Tensor and tile assignments are never removed.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from pypto_core.analysis.walk import vars_read, walk
from pypto_core.ir import expr as E
from pypto_core.ir import stmt as S
from pypto_core.ir.dtypes import DataType
from pypto_core.ir.types import ScalarType, Type
from pypto_core.ir.utils import collect_def_vars, flatten_to_stmts, make_body
from pypto_core.passes.verifiers._walk import vars_in_type


def removable(s: S.Stmt) -> bool:
    if not isinstance(s, S.AssignStmt) or not isinstance(s.var.type, ScalarType):
        return False
    if s.var.type.dtype is DataType.TASK_ID:
        return False
    return not any(isinstance(n, E.Call) for n in walk(s.value))


def _type_reads(t: Type) -> list[E.Var]:
    return vars_in_type(t) if t.has_vars else []


class _Reads:
    """Who reads what: the roots (kept statements) and the edges of removable assignments."""

    def __init__(self) -> None:
        self.roots: set[int] = set()
        self.edges: dict[int, set[int]] = defaultdict(set)

    def read(self, value: Any) -> None:
        self.roots.update(id(v) for v in vars_read(value))

    def binders(self, vs: list[E.Var]) -> None:
        for v in vs:
            self.roots.update(id(x) for x in _type_reads(v.type))

    def scan(self, body: S.Stmt | None) -> None:
        for s in flatten_to_stmts(body):
            if removable(s):
                self.edges[id(s.var)].update(id(v) for v in vars_read(s.value))  # type: ignore[attr-defined]
            elif isinstance(s, S.IfStmt):
                self.read(s.condition)
                self.scan(s.then_body)
                self.scan(s.else_body)
            elif isinstance(s, S.ForStmt):
                self.read([s.start, s.stop, s.step, *[ia.initValue for ia in s.iter_args], s.attrs])
                self.scan(s.body)
            elif isinstance(s, S.WhileStmt):
                self.read([s.condition, *[ia.initValue for ia in s.iter_args]])
                self.scan(s.body)
            elif isinstance(s, S.ScopeStmt):
                self.read([s.attrs, getattr(s, "core_num", None)])
                self.scan(s.body)
            else:
                self.read(s)
                self.binders([s.var] if isinstance(s, S.AssignStmt) else [])
            self.binders(_header_binders(s))

    def live(self) -> set[int]:
        live, pending = set(self.roots), list(self.roots)
        while pending:
            for used in self.edges.get(pending.pop(), ()):
                if used not in live:
                    live.add(used)
                    pending.append(used)
        return live


def _header_binders(s: S.Stmt) -> list[E.Var]:
    if isinstance(s, S.ForStmt):
        return [s.loop_var, *s.iter_args, *s.return_vars]
    if isinstance(s, (S.WhileStmt,)):
        return [*s.iter_args, *s.return_vars]
    if isinstance(s, S.IfStmt):
        return list(s.return_vars)
    return []


def _sweep(body: S.Stmt | None, live: set[int]) -> S.Stmt | None:
    if body is None:
        return None
    out = []
    for s in flatten_to_stmts(body):
        if removable(s) and id(s.var) not in live:  # type: ignore[attr-defined]
            continue
        if isinstance(s, S.IfStmt):
            s = s.with_fields(then_body=_sweep(s.then_body, live), else_body=_sweep(s.else_body, live))
        elif isinstance(s, (S.ForStmt, S.WhileStmt, S.ScopeStmt)):
            s = s.with_fields(body=_sweep(s.body, live))
        out.append(s)
    return make_body(out, body.span) if out else S.SeqStmts([], body.span)


def remove_dead_scalars(body: S.Stmt) -> S.Stmt:
    reads = _Reads()
    reads.scan(body)
    return _sweep(body, reads.live())  # type: ignore[return-value]


def _without_slots(body: S.Stmt | None, unused: set[int]) -> S.Stmt | None:
    stmts = flatten_to_stmts(body)
    if not stmts or not isinstance(stmts[-1], S.YieldStmt):
        return body
    last = stmts[-1]
    values = [v for i, v in enumerate(last.value) if i not in unused]
    stmts = stmts[:-1] + ([S.YieldStmt(values, last.span, last.leading_comments)] if values else [])
    return make_body(stmts, body.span) if stmts else S.SeqStmts([], body.span)  # type: ignore[union-attr]


def remove_unused_if_results(body: S.Stmt, read: set[int]) -> S.Stmt:
    """If results nothing reads leave the if, with their slot of both branches' trailing yields."""
    out = []
    for s in flatten_to_stmts(body):
        if isinstance(s, S.IfStmt):
            unused = {i for i, rv in enumerate(s.return_vars) if id(rv) not in read}
            then_body = remove_unused_if_results(s.then_body, read)
            else_body = None if s.else_body is None else remove_unused_if_results(s.else_body, read)
            if unused:
                then_body = _without_slots(then_body, unused)  # type: ignore[assignment]
                else_body = _without_slots(else_body, unused)
            s = s.with_fields(then_body=then_body, else_body=else_body,
                              return_vars=tuple(rv for i, rv in enumerate(s.return_vars) if i not in unused))
        elif isinstance(s, (S.ForStmt, S.WhileStmt, S.ScopeStmt)):
            s = s.with_fields(body=remove_unused_if_results(s.body, read))
        out.append(s)
    return make_body(out, body.span) if out else S.SeqStmts([], body.span)


def all_reads(body: S.Stmt) -> set[int]:
    reads = {id(v) for v in vars_read(body)}
    for v in collect_def_vars(body):
        reads.update(id(x) for x in _type_reads(v.type))
    return reads


def cleanup(body: S.Stmt) -> S.Stmt:
    body = remove_dead_scalars(body)
    body = remove_unused_if_results(body, all_reads(body))
    return remove_dead_scalars(body)

"""Changing an InCore function's parameters and every call of it (docs/passes/optimize_orch_tensors.md):
retyping a parameter (Patterns 2 and 4) and merging an Out parameter into an In one (Pattern 1)."""

from __future__ import annotations

from collections.abc import Mapping

from pypto_core.analysis.walk import vars_read
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.calls import call_return_type
from pypto_core.ir.enums import ParamDirection
from pypto_core.ir.types import Type
from pypto_core.ir.utils import make_body, substitute_stmt
from pypto_core.ir.visitor import IRMutator
from pypto_plugins.pass_dispatch.orch_tensors.facts import is_fresh_buffer


def calls_of(name: str, node: object) -> bool:
    return isinstance(node, E.Call) and isinstance(node.op, E.GlobalVar) and node.op.name == name


def retyped_params(func: F.Function, types: Mapping[int, Type]) -> F.Function:
    """`func` with parameter i of type types[i] (a new Var of the same name), its uses substituted."""
    params = list(func.params)
    mapping: dict[E.Var, E.Expr] = {}
    for i, t in types.items():
        new = E.Var(params[i].name_hint, t, params[i].span)
        mapping[params[i]] = new
        params[i] = new
    body = substitute_stmt(func.body, mapping)
    return func.with_fields(params=tuple(params), body=body)


def merged_params(func: F.Function, merges: Mapping[int, int]) -> F.Function:
    """Pattern 1's callee rewrite: for each Out parameter `po` -> In parameter `pi` of `merges`, `po` is dropped,
    `pi` becomes InOut and takes `po`'s uses. Return types stay."""
    params, directions = list(func.params), list(func.param_directions)
    mapping: dict[E.Var, E.Expr] = {params[po]: params[pi] for po, pi in merges.items()}
    for pi in merges.values():
        directions[pi] = ParamDirection.InOut
    kept = [(p, d) for i, (p, d) in enumerate(zip(params, directions)) if i not in merges]
    body = substitute_stmt(func.body, mapping)
    return func.with_fields(params=tuple(p for p, _ in kept), param_directions=tuple(d for _, d in kept), body=body)


class _DropArguments(IRMutator):
    """Every call of `callee` loses the arguments at `dropped`; its result type is derived again from the new
    callee, and an assigned result gets a new Var of the same name."""

    def __init__(self, callee: F.Function, dropped: set[int]) -> None:
        self.callee, self.dropped = callee, dropped
        self.removed: list[E.Expr] = []
        self.subst: dict[int, E.Var] = {}

    def visit_var(self, var: E.Var) -> E.Expr:
        return self.subst.get(id(var), var)

    def visit_call(self, call: E.Call) -> E.Expr:
        call = self.visit_node(call)  # type: ignore[assignment]
        if not calls_of(self.callee.name, call):
            return call
        self.removed.extend(a for i, a in enumerate(call.args) if i in self.dropped)
        args = [a for i, a in enumerate(call.args) if i not in self.dropped]
        result = call_return_type(list(self.callee.params), list(self.callee.return_types), args)
        return call.with_fields(args=tuple(args), type=result)

    def visit_assign_stmt(self, stmt: S.AssignStmt) -> S.Stmt:
        value = self.visit_expr(stmt.value)
        if value is stmt.value:
            return stmt
        if calls_of(self.callee.name, value):
            var = E.Var(stmt.var.name_hint, value.type, stmt.var.span)
            self.subst[id(stmt.var)] = var
            return stmt.with_fields(var=var, value=value)
        return stmt.with_fields(value=value)


class _DropDeadCreates(IRMutator):
    def __init__(self, dead: set[int]) -> None:
        self.dead = dead

    def visit_seq_stmts(self, seq: S.SeqStmts) -> S.Stmt:
        kept = [self.visit_stmt(s) for s in seq.stmts
                if not (isinstance(s, S.AssignStmt) and id(s.var) in self.dead)]
        return make_body(kept, seq.span)


def drop_arguments(caller: F.Function, callee: F.Function, dropped: set[int]) -> F.Function:
    """`caller` with the `dropped` arguments of every call of `callee` removed (callee: the new function), and
    each fresh-buffer statement that only fed a removed argument deleted."""
    mutator = _DropArguments(callee, dropped)
    body = mutator.visit_stmt(caller.body)
    if body is caller.body:
        return caller
    still_read = {id(v) for v in vars_read(body)}
    removed = {id(a) for a in mutator.removed if isinstance(a, E.Var) and id(a) not in still_read}
    dead = {id(s.var) for s in _assignments(body) if id(s.var) in removed and is_fresh_buffer(s.value)}
    if dead:
        body = _DropDeadCreates(dead).visit_stmt(body)
    return caller.with_fields(body=body)


def _assignments(body: S.Stmt) -> list[S.AssignStmt]:
    from pypto_core.analysis.walk import statements

    return [s for s in statements(body) if isinstance(s, S.AssignStmt)]

"""Small IR utilities every pass uses (docs/architecture.md, the core)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pypto_core.ir import expr as E
from pypto_core.ir import stmt as S
from pypto_core.ir.span import Span
from pypto_core.ir.visitor import IRMutator, IRVisitor


def flatten_to_stmts(stmt: S.Stmt | None) -> list[S.Stmt]:
    """The children of a SeqStmts (recursively flattened), or [stmt]."""
    if stmt is None:
        return []
    if isinstance(stmt, S.SeqStmts):
        out: list[S.Stmt] = []
        for s in stmt.stmts:  # recursing only into nested sequences: no list per statement
            if isinstance(s, S.SeqStmts):
                out.extend(flatten_to_stmts(s))
            elif s is not None:
                out.append(s)
        return out
    return [stmt]


def make_body(stmts: Sequence[S.Stmt], span: Span | None = None) -> S.Stmt:
    """Normalised body: one statement stays bare, several become a flat SeqStmts (docs/architecture.md, the core)."""
    flat: list[S.Stmt] = []
    for s in stmts:
        if isinstance(s, S.SeqStmts):
            flat.extend(flatten_to_stmts(s))
        elif s is not None:
            flat.append(s)
    if len(flat) == 1:
        return flat[0]
    return S.SeqStmts(flat, span or (flat[0].span if flat else None))


def seq(stmts: Sequence[S.Stmt], span: Span | None = None) -> S.SeqStmts:
    """A flat SeqStmts, even for a single statement."""
    flat: list[S.Stmt] = []
    for s in stmts:
        flat.extend(flatten_to_stmts(s))
    return S.SeqStmts(flat, span)


class Substituter(IRMutator):
    """Replaces variables by identity. A variable whose *type* mentions a replaced variable (a dim, a
    valid-shape expression) is itself replaced by a copy with the substituted type, everywhere."""

    def __init__(self, mapping: Mapping[E.Var, E.Expr]) -> None:
        self.mapping = {id(k): v for k, v in mapping.items()}

    def visit_var(self, var: E.Var) -> E.Expr:
        hit = self.mapping.get(id(var))
        if hit is not None:
            return hit
        if var.type.has_vars:
            new_type = self.visit_type(var.type)
            if new_type is not var.type:
                hit = self.mapping[id(var)] = var.with_fields(type=new_type)  # type: ignore[assignment]
                return hit
        return var

    def visit_call(self, call: E.Call) -> E.Expr:
        """The generic walk of a call, short-cut for the usual one: no kwargs, attrs or type variables, so only
        its arguments can change (every outlined scope body is substituted through here)."""
        if call.kwargs or call.attrs or call.type.has_vars:
            return self.visit_node(call)
        args = call.args
        mapping = self.mapping
        new_args: list[E.Expr] | None = None
        for i, a in enumerate(args):
            if type(a) is E.Var and not a.type.has_vars:
                n = mapping.get(id(a), a)
            else:
                n = self._dispatch(a)
            if n is not a:
                if new_args is None:
                    new_args = list(args)
                new_args[i] = n
        return call if new_args is None else call.with_fields(args=tuple(new_args))  # type: ignore[return-value]

    def visit_iter_arg(self, var: E.IterArg) -> E.Expr:
        hit = self.mapping.get(id(var))
        if hit is not None:
            return hit
        new_type = self.visit_type(var.type) if var.type.has_vars else var.type
        new_init = self.visit_expr(var.initValue)
        if new_type is var.type and new_init is var.initValue:
            return var
        hit = self.mapping[id(var)] = var.with_fields(type=new_type, initValue=new_init)  # type: ignore[assignment]
        return hit


def substitute_expr(expr: E.Expr, mapping: Mapping[E.Var, E.Expr]) -> E.Expr:
    """Replace variables (by identity) everywhere in an expression."""
    if not mapping:
        return expr
    return Substituter(mapping).visit_expr(expr)


def substitute_stmt(stmt: S.Stmt, mapping: Mapping[E.Var, E.Expr]) -> S.Stmt:
    """Replace variables (by identity) at uses and definition sites of a statement tree."""
    if not mapping:
        return stmt
    return Substituter(mapping).visit_stmt(stmt)


def substitute(node: Any, mapping: Mapping[E.Var, E.Expr]) -> Any:
    if not mapping:
        return node
    return Substituter(mapping).visit(node)


class _DefCollector(IRVisitor):
    def __init__(self) -> None:
        self.defs: list[E.Var] = []

    def visit_node(self, node: Any) -> None:
        from pypto_core.ir.node import FieldRole

        for spec in node.FIELDS:
            if spec.role is FieldRole.DEF:
                value = getattr(node, spec.name)
                for v in value if isinstance(value, tuple) else (value,):
                    if isinstance(v, E.Var):
                        self.defs.append(v)
        super().visit_node(node)


def collect_def_vars(node: Any) -> list[E.Var]:
    """Every variable bound by a definition site inside `node`, in walk order."""
    c = _DefCollector()
    c.visit(node)
    return c.defs


def find_yield_stmt(body: S.Stmt | None) -> S.YieldStmt | None:
    """The trailing YieldStmt of a loop/if body, if any."""
    stmts = flatten_to_stmts(body)
    if stmts and isinstance(stmts[-1], S.YieldStmt):
        return stmts[-1]
    return None


get_last_yield_stmt = find_yield_stmt


class _Cloner(IRMutator):
    """Fresh variables at every definition site; uses follow their definition."""

    def __init__(self) -> None:
        self.mapping: dict[int, E.Var] = {}

    def visit_node(self, node: Any) -> Any:
        from pypto_core.ir.node import FieldRole

        for spec in node.FIELDS:
            if spec.role is FieldRole.DEF:
                value = getattr(node, spec.name)
                for v in value if isinstance(value, tuple) else (value,):
                    if isinstance(v, E.Var) and id(v) not in self.mapping:
                        self.mapping[id(v)] = self._fresh(v)
        return super().visit_node(node)

    def _fresh(self, v: E.Var) -> E.Var:
        # A type may mention variables defined before this one (a lane-dependent valid_shape, a dynamic
        # dim): the copy's type mentions their copies.
        t = self.visit_type(v.type) if v.type.has_vars else v.type
        if isinstance(v, E.IterArg):
            return E.IterArg(v.name_hint, t, self.visit_expr(v.initValue), v.span)
        return E.Var(v.name_hint, t, v.span)

    def visit_var(self, var: E.Var) -> E.Expr:
        return self.mapping.get(id(var), var)

    def visit_iter_arg(self, var: E.IterArg) -> E.Expr:
        return self.mapping.get(id(var), var)


def deep_clone(node: Any) -> Any:
    """A copy with fresh variables at every definition site (a Function's params included)."""
    return _Cloner().visit(node)


def free_vars_in_order(exprs: Iterable[Any]) -> list[E.Var]:
    """Variables used in `exprs`, first occurrence first (no type dims)."""
    walker = _FreeVarUses()
    for e in exprs:
        walker.visit(e)
    return walker.out


class _FreeVarUses(IRVisitor):
    """free_vars_in_order's walker: one class for all calls (a class made per call is a reference cycle
    for the garbage collector, and starts an empty dispatch cache each time)."""

    def __init__(self) -> None:
        self.seen: set[int] = set()
        self.out: list[E.Var] = []

    def visit_var_like(self, var: E.Var) -> None:
        if id(var) not in self.seen:
            self.seen.add(id(var))
            self.out.append(var)


def append_to_yield(stmts: list[S.Stmt], values: Sequence[E.Expr], span: Span | None = None) -> S.Stmt:
    """A loop/if body whose trailing yield also carries `values` (a yield is appended if there is none)."""
    if values:
        if stmts and isinstance(stmts[-1], S.YieldStmt):
            last = stmts[-1]
            stmts[-1] = S.YieldStmt(list(last.value) + list(values), last.span, last.leading_comments)
        else:
            stmts.append(S.YieldStmt(list(values), span))
    return make_body(stmts, span)


def rebuilt_seq(seq: S.SeqStmts, stmts: Sequence[S.Stmt]) -> S.Stmt:
    """`seq` with its statements replaced by `stmts`: itself when nothing changed, else a normalised body (one
    statement stays bare, as the parser builds it, so the printed body parses back equal) keeping its comments."""
    if len(stmts) == len(seq.stmts) and all(a is b for a, b in zip(stmts, seq.stmts)):
        return seq
    if len(stmts) == 1:
        return stmts[0]
    return S.SeqStmts(list(stmts), seq.span, seq.leading_comments)


def function_calls(stmt: S.Stmt) -> list[E.Call]:
    """Every call of a program function (a GlobalVar op) in `stmt`, nested ones included, in walk order."""
    found: list[E.Call] = []
    _collect_function_calls(stmt, found)
    return found


def _collect_function_calls(value: Any, found: list[E.Call]) -> None:
    # A direct walk (no visitor dispatch) that skips what cannot hold a call: types, plain variables, ops.
    if isinstance(value, E.Call):
        if isinstance(value.op, E.GlobalVar):
            found.append(value)
        for arg in value.args:
            _collect_function_calls(arg, found)
        for item in value.kwargs.values():
            _collect_function_calls(item, found)
    elif isinstance(value, (S.Stmt, E.Expr)):
        if isinstance(value, E.Var) and not isinstance(value, E.IterArg):
            return
        for name in value.WALKED_NAMES:
            if name != "type":
                _collect_function_calls(getattr(value, name), found)
    elif isinstance(value, (tuple, list)):
        for item in value:
            _collect_function_calls(item, found)
    elif isinstance(value, Mapping):
        for item in value.values():
            _collect_function_calls(item, found)


def has_split_aiv_region(body: S.Stmt | None) -> bool:
    """A `pl.split_aiv` region among the statements of `body` (a statement-only walk: no expression holds one)."""
    if body is None:
        return False
    if isinstance(body, S.SplitAivScopeStmt):
        return True
    if isinstance(body, S.SeqStmts):
        return any(has_split_aiv_region(s) for s in body.stmts)
    if isinstance(body, S.IfStmt):
        return has_split_aiv_region(body.then_body) or has_split_aiv_region(body.else_body)
    if isinstance(body, (S.ForStmt, S.WhileStmt, S.ScopeStmt)):
        return has_split_aiv_region(body.body)
    return False


def describe_operand(e: E.Expr) -> str:
    """How a message names an operand: its variable, the op computing it inline, or a tuple element."""
    if isinstance(e, E.Var):
        return e.name_hint
    if isinstance(e, E.Call):
        return f"{e.op.name}(...)"
    if isinstance(e, E.TupleGetItemExpr):
        return f"{describe_operand(e.tuple)}[{e.index}]"
    return type(e).__name__

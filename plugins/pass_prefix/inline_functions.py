"""InlineFunctions: every `FunctionType.Inline` function is pasted into its callers and removed
(docs/passes/inline_functions.md).

A call site is a statement that is exactly `x = self.f(...)`, `self.f(...)` or `return self.f(...)` with `f`
Inline, at any depth of the body. The site is replaced by a copy of f's body in which each parameter is the
actual argument (at its uses and at its definitions: `o = op(o, ...)` on a parameter rebinds the caller's
variable) and every variable f defines is a fresh `<name>_inline<N>` (N from one process-wide counter; iter_args
keep their names). The copy ends at its top-level return, whose values become the site's result: `x = v`,
`return v1, ...`, or, for a tuple result, the later `x[i]` reads of the caller (the parser's `_tuple_tmp`)
replaced by the i-th value. Expansion repeats (Inline functions first, then the others, each round from the
bodies the round started with) until nothing changes, so chains of Inline functions collapse. A call nested in
an expression (`pl.add(self.f(x), y)`) is not a site: it is left as it is and the InlineFunctionsEliminated
verifier reports it once f is gone.
"""

from __future__ import annotations

import itertools
from typing import Any

from pypto_core.analysis.walk import statements
from pypto_core.errors import InternalError, UserError
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import FunctionType, ParamDirection
from pypto_core.ir.structural import structural_equal
from pypto_core.ir.types import TupleType
from pypto_core.ir.utils import (
    Substituter,
    collect_def_vars,
    flatten_to_stmts,
    free_vars_in_order,
    function_calls,
    make_body,
)
from pypto_core.ir.visitor import IRMutator
from pypto_core.passes.pass_base import Pass

# PyPTO's `_inline<N>` counter: process-wide, from 0 at load, never reset (a second run continues numbering).
_INLINE_COUNTER = itertools.count()


class InlineBodyError(UserError, InternalError):
    """A body InlineFunctions cannot splice. PyPTO raises InternalError; the program is what has to change, so
    pypto's error is also a located ValueError (the command line reports it as a rejected program)."""


def inline_functions_of(program: F.Program) -> dict[str, F.Function]:
    return {f.name: f for f in program.functions.values() if f.func_type is FunctionType.Inline}


def _callee_name(call: E.Expr) -> str | None:
    if isinstance(call, E.Call) and isinstance(call.op, E.GlobalVar):
        return call.op.name
    return None


# -- the cycle check -----------------------------------------------------------------------------------------
def check_no_cycle(inline: dict[str, F.Function]) -> None:
    """An Inline function that (through other Inline functions) calls itself cannot be expanded."""
    edges: dict[str, list[str]] = {}
    for name, func in inline.items():
        targets: list[str] = []
        for call in function_calls(func.body):
            if call.op.name in inline and call.op.name not in targets:
                targets.append(call.op.name)
        edges[name] = targets
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(name: str) -> None:
        state[name] = 1
        path.append(name)
        for target in edges[name]:
            if state.get(target) == 1:
                cycle = [*path[path.index(target):], target]
                raise UserError("Cycle detected in FunctionType::Inline call graph: " + " -> ".join(cycle),
                                inline[target].span)
            if target not in state:
                visit(target)
        path.pop()
        state[name] = 2

    for name in sorted(inline):
        if name not in state:
            visit(name)


# -- one call site -----------------------------------------------------------------------------------------
def _contains_return(stmt: S.Stmt | None) -> bool:
    return stmt is not None and any(isinstance(s, S.ReturnStmt) for s in statements(stmt))


def cloned_body(callee: F.Function, call: E.Call) -> S.Stmt:
    """f's body with the actual arguments for its parameters and fresh `_inline<N>` variables for its own.

    A parameter f assigns is, like in PyPTO, the caller's variable when it is Out / InOut (`o =
    pl.tensor.assemble(o, ...)` rebinds the caller's `o`, which is how the caller sees the write). An In
    parameter f assigns gets a local copy instead (`x_inline<N> = a` first): PyPTO rebinds the caller's `a` there
    too, which changes what the caller reads from `a` after the call (`b = self.bump(a); c = pl.add(a, b)`).
    """
    if len(call.args) != len(callee.params):
        raise InternalError(f"call of Inline function '{callee.name}' with {len(call.args)} argument(s) for "
                            f"{len(callee.params)} parameter(s) at {call.span.to_string()}")
    params = {id(p): a for p, a in zip(callee.params, call.args)}
    directions = {id(p): d for p, d in zip(callee.params, callee.param_directions)}
    local: list[E.Var] = []
    copied: list[E.Var] = []  # In parameters f assigns: each gets a local copy
    seen: set[int] = set()
    for v in collect_def_vars(callee.body):
        if id(v) in seen:
            continue
        seen.add(id(v))
        if id(v) in params:
            if directions[id(v)] is ParamDirection.In:
                copied.append(v)
                local.append(v)
            elif not isinstance(params[id(v)], E.Var):
                raise InlineBodyError(
                    f"AssignStmt var is not a Var after mutation: Inline function '{callee.name}' assigns its "
                    f"{directions[id(v)].name} parameter '{v.name_hint}', and this call passes "
                    f"{type(params[id(v)]).__name__} for it; pass a variable", call.span)
            continue
        local.append(v)
    # PyPTO numbers one splice's variables last-defined first (its worked examples: `u_inline0`, `t_inline1`).
    numbers = {id(v): next(_INLINE_COUNTER) for v in reversed(local) if not isinstance(v, E.IterArg)}
    sub = Substituter({})
    sub.mapping = dict(params)
    copies: list[S.Stmt] = []
    for v in copied:
        fresh = E.Var(f"{v.name_hint}_inline{numbers[id(v)]}", sub.visit_type(v.type) if v.type.has_vars else v.type,
                      v.span)
        copies.append(S.AssignStmt(fresh, params[id(v)], call.span))
    for v, stmt in zip(copied, copies):
        sub.mapping[id(v)] = stmt.var  # after all copies are made: each copies the caller's value
    for v in local:  # in definition order: a type or an init value may mention an earlier variable
        if id(v) in params:
            continue
        t = sub.visit_type(v.type) if v.type.has_vars else v.type
        if isinstance(v, E.IterArg):
            sub.mapping[id(v)] = E.IterArg(v.name_hint, t, sub.visit_expr(v.initValue), v.span)
        else:
            sub.mapping[id(v)] = E.Var(f"{v.name_hint}_inline{numbers[id(v)]}", t, v.span)
    body = sub.visit_stmt(callee.body)
    return make_body([*copies, body], body.span) if copies else body


def split_at_return(callee: F.Function, body: S.Stmt) -> tuple[list[S.Stmt], S.ReturnStmt | None]:
    """The statements before the top-level return, and the return (statements after it never run)."""
    stmts = flatten_to_stmts(body)
    ret: S.ReturnStmt | None = None
    for i, s in enumerate(stmts):
        if isinstance(s, S.ReturnStmt):
            stmts, ret = stmts[:i], s
            break
    for s in stmts:
        if _contains_return(s):
            raise InlineBodyError(
                f"Inline function '{callee.name}' contains a non-trailing ReturnStmt; only a single trailing "
                f"return is supported: assign the value to a variable in the branch or loop and return that "
                f"variable once, at the end of '{callee.name}'", _first_return_span(s) or callee.span)
    return stmts, ret


def _first_return_span(stmt: S.Stmt | None) -> Any:
    for s in flatten_to_stmts(stmt):
        if isinstance(s, S.ReturnStmt):
            return s.span
        for child in (getattr(s, "then_body", None), getattr(s, "else_body", None), getattr(s, "body", None)):
            if isinstance(child, S.Stmt):
                found = _first_return_span(child)
                if found is not None:
                    return found
    return None


def tuple_elements(callee: F.Function, pre: list[S.Stmt], values: tuple[E.Expr, ...]) -> list[E.Expr] | None:
    """The elements of a tuple result, or None for a single value; may delete the MakeTuple binding in `pre`."""
    if len(values) >= 2:
        return list(values)
    if len(values) != 1 or not isinstance(values[0].type, TupleType):
        return None
    value = values[0]
    if isinstance(value, E.MakeTuple):
        return list(value.elements)
    if isinstance(value, E.Var):
        for i, s in enumerate(pre):
            if isinstance(s, S.AssignStmt) and s.var is value and isinstance(s.value, E.MakeTuple):
                del pre[i]
                return list(s.value.elements)
    raise InlineBodyError(f"Inline function '{callee.name}' returns a tuple through an unsupported expression "
                          f"({type(value).__name__}): return the values themselves (`return a, b`)", value.span)


class _DumpTagger(IRMutator):
    """Hands a call site's `dump_vars` (pl.dump_tag) on to the scopes and dispatches of the spliced code."""

    def __init__(self, tagged: list[E.Var]) -> None:
        self.tagged = tagged

    def _with(self, attrs: dict[str, Any], wanted: list[E.Var]) -> dict[str, Any] | None:
        listed = list(attrs.get("dump_vars", ()))
        extra = [v for v in wanted if not any(v is w for w in listed)]
        return {**attrs, "dump_vars": listed + extra} if extra else None

    def visit_scope_stmt(self, scope: S.ScopeStmt) -> S.Stmt:
        new = self.visit_node(scope)
        used = {id(v) for v in free_vars_in_order([scope.body])}
        attrs = self._with(new.attrs, [v for v in self.tagged if id(v) in used])
        return new if attrs is None else new.with_fields(attrs=attrs)

    def visit_call(self, call: E.Call) -> E.Expr:
        new = self.visit_node(call)
        if not isinstance(call.op, E.GlobalVar):
            return new
        args = {id(a) for a in call.args}
        attrs = self._with(new.attrs, [v for v in self.tagged if id(v) in args])
        return new if attrs is None else new.with_fields(attrs=attrs)


# -- the expansion of one function ---------------------------------------------------------------------------
class _Expander(IRMutator):
    def __init__(self, inline: dict[str, F.Function]) -> None:
        self.inline = inline  # the Inline functions as this round started
        self.tuple_values: dict[int, list[E.Expr]] = {}  # a tuple-valued site's variable -> its elements
        self.retyped: dict[int, E.Var] = {}  # a site's variable -> the same name with its inlined value's type

    def site_var(self, var: E.Var, value: E.Expr) -> E.Var:
        """The site's variable, typed as the inlined value is when that type says more than the callee's declared
        return type (a tile's memory space): the parser reads `t = <value>` back with the value's type."""
        if structural_equal(var.type, value.type) or not isinstance(value.type, type(var.type)):
            return var
        new = E.Var(var.name_hint, value.type, var.span)
        self.retyped[id(var)] = new
        return new

    def visit_var(self, var: E.Var) -> E.Expr:
        return self.retyped.get(id(var), var)

    def site_callee(self, value: E.Expr) -> F.Function | None:
        name = _callee_name(value)
        return self.inline.get(name) if name is not None else None

    def visit_seq_stmts(self, seq: S.SeqStmts) -> S.Stmt:
        stmts = [self.visit_stmt(s) for s in seq.stmts]
        if all(a is b for a, b in zip(stmts, seq.stmts)):
            return seq
        flat: list[S.Stmt] = []
        for new, old in zip(stmts, seq.stmts):
            flat.extend(flatten_to_stmts(new) if new is not old and isinstance(new, S.SeqStmts) else [new])
        body = make_body(flat, seq.span)
        if seq.leading_comments and isinstance(body, S.SeqStmts):
            body = body.with_comments(seq.leading_comments)
        return body

    def visit_assign_stmt(self, s: S.AssignStmt) -> S.Stmt:
        callee = self.site_callee(s.value)
        return self.visit_node(s) if callee is None else self.splice(s, s.value, callee)  # type: ignore[arg-type]

    def visit_eval_stmt(self, s: S.EvalStmt) -> S.Stmt:
        callee = self.site_callee(s.expr)
        return self.visit_node(s) if callee is None else self.splice(s, s.expr, callee)  # type: ignore[arg-type]

    def visit_return_stmt(self, s: S.ReturnStmt) -> S.Stmt:
        callee = self.site_callee(s.value[0]) if len(s.value) == 1 else None
        return self.visit_node(s) if callee is None else self.splice(s, s.value[0], callee)  # type: ignore[arg-type]

    def visit_tuple_get_item_expr(self, e: E.TupleGetItemExpr) -> E.Expr:
        inner = self.visit_expr(e.tuple)
        elements = self.tuple_values.get(id(inner)) if isinstance(inner, E.Var) else None
        if elements is not None and 0 <= e.index < len(elements):
            return elements[e.index]
        return e if inner is e.tuple else E.TupleGetItemExpr(inner, e.index, e.span)

    def splice(self, site: S.Stmt, call: E.Call, callee: F.Function) -> S.Stmt:
        # The site's own arguments may read earlier tuple results.
        args = [self.visit_expr(a) for a in call.args]
        if not all(a is b for a, b in zip(args, call.args)):
            call = call.with_fields(args=tuple(args))  # type: ignore[assignment]
        pre, ret = split_at_return(callee, cloned_body(callee, call))
        values = ret.value if ret is not None else ()
        out = list(pre)
        if isinstance(site, S.ReturnStmt):
            out.append(S.ReturnStmt(list(values), site.span))
        elif isinstance(site, S.AssignStmt):
            if not values:
                raise InternalError(f"the result of Inline function '{callee.name}', which returns nothing, is "
                                    f"assigned to '{site.var.name_hint}' at {site.span.to_string()}")
            elements = tuple_elements(callee, out, values)
            if elements is not None:
                self.tuple_values[id(site.var)] = elements
            elif values[0] is not site.var:
                out.append(S.AssignStmt(self.site_var(site.var, values[0]), values[0], site.span))
        tagged = [v for v in call.attrs.get("dump_vars", ()) if isinstance(v, E.Var)]
        if tagged:
            tagger = _DumpTagger(tagged)
            out = [tagger.visit_stmt(s) for s in out]
        if out and site.leading_comments:
            out[0] = out[0].with_comments([*site.leading_comments, *out[0].leading_comments])
        return make_body(out, site.span)


def expand_function(func: F.Function, inline: dict[str, F.Function]) -> F.Function:
    return _Expander(inline).visit_function(func)


class InlineFunctions(Pass):
    """Splice every FunctionType.Inline function into its call sites and remove it."""

    name = "InlineFunctions"
    factory_name = "inline_functions"
    produced = ("InlineFunctionsEliminated",)
    description = ("Paste a renamed copy of each FunctionType.Inline function's body at every statement calling "
                   "it, then remove the Inline functions (docs/passes/inline_functions.md).")

    def run(self, program: F.Program, ctx: Any) -> F.Program:
        inline = inline_functions_of(program)
        if not inline:
            return program
        check_no_cycle(inline)
        funcs = {f.name: f for f in program.functions.values()}
        order = sorted(inline) + sorted(n for n in funcs if n not in inline)
        for _ in range(len(inline) + 1):
            start = {name: funcs[name] for name in inline}
            changed = False
            for name in order:
                new = expand_function(funcs[name], start)
                if new is not funcs[name]:
                    funcs[name], changed = new, True
            if not changed:
                break
        kept = [f for f in funcs.values() if f.func_type is not FunctionType.Inline]
        return F.Program(kept, program.name, program.span)

"""Lift the Hierarchy scopes of one function into Opaque functions (docs/passes/outline_hierarchy_scopes.md, rules).

* params = the scope's live-in variables in first-read order (the shared analysis of scope_analysis.py);
* directions from the registry's per-argument effects (directions.py), except that a captured
  `tile.store` target stays `In` (seed rule: the Hierarchy scope exports no store targets);
* outputs = the values defined in the scope and used after it, in definition order; a tensor output that
  is a parameter's buffer (assembled or stored into it) is returned as that parameter;
* the caller binds every output to the very variable it replaces, so nothing after the scope changes:
  a store result used later stays defined (PyPTO leaves it dangling, docs/passes/outline_hierarchy_scopes.md);
* nested Hierarchy scopes are lifted out of the new function in turn, named after it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import SimpleNamespace
from typing import Any

from pypto_core.analysis.lineage import Lineage, written_arg_index
from pypto_core.errors import InternalError, UserError
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir import types as T
from pypto_core.ir.calls import call_return_type
from pypto_core.ir.enums import FunctionType, ParamDirection
from pypto_core.ir.fresh_names import FreshNames
from pypto_core.ir.utils import Substituter, deep_clone, flatten_to_stmts, make_body
from pypto_core.ir.visitor import IRVisitor
from pypto_core.ops.registry import opdef_of
from pypto_plugins.pass_outline.callee import cache_policy_attr
from pypto_plugins.pass_outline.directions import infer_param_directions
from pypto_plugins.pass_outline.hierarchy_names import HierarchyNames, canonical_level
from pypto_plugins.pass_outline.scope_analysis import live_ins, with_type_dependencies
from pypto_plugins.pass_outline.stores import stored_param
from pypto_plugins.pass_outline.walk import OrderedWalk, count_uses

PASS = "OutlineHierarchyScopes"


class HierarchyOutliner:
    """Outlines every Hierarchy scope of a function (and of the functions made from them)."""

    def __init__(self, names: HierarchyNames, callee_directions: Mapping[str, Sequence[ParamDirection]],
                 callee_returns: Mapping[str, list[int | None]]) -> None:
        self.names = names
        self.callee_directions = callee_directions
        self.callee_returns = callee_returns
        self.made: list[F.Function] = []

    def run(self, func: F.Function) -> F.Function:
        """`func` with its Hierarchy scopes replaced by calls; the new functions collect in `made`."""
        ctx = _FunctionContext(func)
        body = self._block(flatten_to_stmts(func.body), ctx)
        if not ctx.changed:
            return func
        return func.with_fields(body=make_body(body, func.body.span))

    # -- the walk of one function ------------------------------------------------------------------
    def _block(self, stmts: Sequence[S.Stmt], ctx: _FunctionContext) -> list[S.Stmt]:
        out: list[S.Stmt] = []
        for s in stmts:
            out.extend(self._stmt(s, ctx))
        return out

    def _body(self, body: S.Stmt | None, ctx: _FunctionContext) -> S.Stmt | None:
        if body is None:
            return None
        return make_body(self._block(flatten_to_stmts(body), ctx), body.span)

    def _stmt(self, s: S.Stmt, ctx: _FunctionContext) -> list[S.Stmt]:
        if isinstance(s, S.HierarchyScopeStmt):
            ctx.changed = True
            return self._outline(s, ctx)
        if isinstance(s, S.SeqStmts):
            return self._block(s.stmts, ctx)
        if isinstance(s, (S.ForStmt, S.WhileStmt, S.ScopeStmt)):
            return [s.with_fields(body=self._body(s.body, ctx))]
        if isinstance(s, S.IfStmt):
            return [s.with_fields(then_body=self._body(s.then_body, ctx), else_body=self._body(s.else_body, ctx))]
        return [s]

    # -- one scope -----------------------------------------------------------------------------------
    def _outline(self, scope: S.HierarchyScopeStmt, ctx: _FunctionContext) -> list[S.Stmt]:
        body = flatten_to_stmts(scope.body)
        name = self.names.allocate(ctx.func.name, ctx.var_names, scope.level, scope.role, scope.name_hint)
        inputs = with_type_dependencies(live_ins(body, ctx.local), ctx.local)
        _check_ssa(scope, body, inputs, name)
        outputs = _live_outs(body, ctx.uses)
        directions = self._directions(body, inputs)
        subst = Substituter({})
        params: list[E.Var] = []
        for v in inputs:
            p = E.Var(v.name_hint, subst.visit_type(v.type) if v.type.has_vars else v.type, v.span)
            subst.mapping[id(v)] = p
            params.append(p)
        callee_body = list(subst.visit(tuple(body)))
        returns = self._returns(callee_body, params, [subst.mapping.get(id(v), v) for v in outputs])
        if returns:
            callee_body.append(S.ReturnStmt(returns, scope.span))
        info = SimpleNamespace(scope=scope, inputs=inputs, directions=directions)
        policy = cache_policy_attr(info, PASS)  # type: ignore[arg-type]
        attrs: dict[str, Any] = {"cache_policy": policy} if policy else {}
        made = F.Function(name, list(zip(params, directions)), [r.type for r in returns],
                          make_body(callee_body, scope.span), scope.span, FunctionType.Opaque, canonical_level(scope.level),
                          scope.role, attrs)
        made = deep_clone(made)  # the new function owns its variables; the caller keeps the originals
        self.made.append(self.run(made))  # nested Hierarchy scopes, named after the new function
        call = E.Call(E.GlobalVar(name), list(inputs), {}, _call_attrs(scope, inputs, name),
                      call_return_type(params, [r.type for r in returns], inputs), scope.span)
        return _bind(call, outputs, scope.span, ctx.fresh)

    def _directions(self, body: list[S.Stmt], inputs: list[E.Var]) -> list[ParamDirection]:
        """The registry's directions, with captured `tile.store` targets kept `In` (seed rule for Hierarchy)."""
        directions = infer_param_directions(S.SeqStmts(body), inputs, self.callee_directions, self.callee_returns)
        lineage = Lineage(self.callee_returns).scan(S.SeqStmts(body))
        targets = {id(lineage.root(t)) for t in _store_targets(body)}
        return [ParamDirection.In if id(v) in targets else d for v, d in zip(inputs, directions)]

    def _returns(self, body: list[S.Stmt], params: list[E.Var], outputs: list[E.Var]) -> list[E.Var]:
        """Each output, or the parameter whose buffer it is when it is a tensor written through one."""
        lineage = Lineage(self.callee_returns).scan(S.SeqStmts(body))
        param_ids = {id(p) for p in params}
        out = []
        for v in outputs:
            root = lineage.root(v)
            out.append(root if root is not None and id(root) in param_ids and isinstance(v.type, T.TensorType)
                       else v)
        return out


class _FunctionContext:
    """What the walk of one function needs: its variables, their uses, fresh temporaries."""

    def __init__(self, func: F.Function) -> None:
        self.func = func
        self.local: set[int] = {id(p) for p in func.params}
        self.var_names: set[str] = {p.name_hint for p in func.params}

        def on_def(v: E.Var) -> None:
            self.local.add(id(v))
            self.var_names.add(v.name_hint)

        OrderedWalk(lambda v: None, on_def).stmt(func.body)
        self.uses = count_uses(func.body)
        self.fresh = FreshNames(func)
        self.changed = False


def _live_outs(body: list[S.Stmt], uses: Mapping[int, int]) -> list[E.Var]:
    """Values the scope defines that something outside it uses, in definition order."""
    inside = count_uses(S.SeqStmts(body))
    defs: list[E.Var] = []
    OrderedWalk(lambda v: None, defs.append).stmts(body)
    return [v for v in defs if uses.get(id(v), 0) - inside.get(id(v), 0) > 0]


def _store_targets(stmts: Sequence[S.Stmt]) -> list[E.Expr]:
    """The GM targets of the tile -> GM stores (registry trait `gm_transfer` with a written argument) anywhere
    in `stmts`, nested scopes included."""
    found: list[E.Expr] = []

    class _Calls(IRVisitor):
        def visit_call(self, call: E.Call) -> None:
            opdef = opdef_of(call) if not isinstance(call.op, E.GlobalVar) else None
            if opdef is not None and opdef.traits.gm_transfer:
                idx = written_arg_index(call)
                if idx is not None:
                    found.append(call.args[idx])
            self.visit_node(call)

    walker = _Calls()
    for s in stmts:
        walker.visit_stmt(s)
    return found


def _check_ssa(scope: S.HierarchyScopeStmt, body: list[S.Stmt], inputs: list[E.Var], name: str) -> None:
    """A captured variable may be rebound only by a `tile.store` into itself (non-SSA `c = store(.., c)`, kept
    as written for Hierarchy scopes); any other rebinding needs ConvertToSSA (docs/passes/outline_hierarchy_scopes.md)."""
    captured = {id(v): v for v in inputs}
    assigns: list[S.AssignStmt] = []

    class _Assigns(IRVisitor):
        def visit_assign_stmt(self, s: S.AssignStmt) -> None:
            assigns.append(s)
            self.visit_node(s)

    walker = _Assigns()
    for s in body:
        walker.visit_stmt(s)
    for s in assigns:
        if id(s.var) in captured and stored_param(s.value, captured) is not s.var:
            raise InternalError(
                f"{PASS}: scope '{name}' captures '{s.var.name_hint}' and rebinds it under the same name without "
                f"a tile.store ({s.span.to_string()}); the input is not in SSA form: run ConvertToSSA "
                f"(passes.convert_to_ssa()) first")


def _call_attrs(scope: S.HierarchyScopeStmt, inputs: list[E.Var], name: str) -> dict[str, Any]:
    """`dumps=[...]` -> `dump_vars` (the captured ones, in argument order); `no_dep_args=[...]` ->
    `arg_direction_overrides` (sorted parameter indices)."""
    attrs: dict[str, Any] = {}
    index = {id(v): i for i, v in enumerate(inputs)}
    dumped = {id(v) for v in scope.attrs.get("dump_vars", ())}
    dumps = [v for v in inputs if id(v) in dumped]
    if dumps:
        attrs["dump_vars"] = dumps
    overrides: set[int] = set()
    for v in scope.attrs.get("arg_direction_overrides_vars", ()):
        if id(v) not in index:
            raise UserError(f"{PASS}: no_dep_args of scope '{name}' references tensor '{v.name_hint}', which is not "
                            f"captured by the scope (the scope neither reads nor writes it); remove it from "
                            f"no_dep_args or use it inside the scope", scope.span)
        overrides.add(index[id(v)])
    if overrides:
        attrs["arg_direction_overrides"] = sorted(overrides)
    return attrs


def _bind(call: E.Call, outputs: list[E.Var], span: Any, fresh: FreshNames) -> list[S.Stmt]:
    """No output: the call as a statement; one: `out = call`; several: `ret__tmp_v0 = call` and one projection
    per output. Every output keeps the variable the scope defined, so later uses stay as they are."""
    if not outputs:
        return [S.EvalStmt(call, span)]
    if len(outputs) == 1:
        return [S.AssignStmt(outputs[0], call, span)]
    tmp = E.Var(fresh("ret__tmp_v0"), call.type, span)
    stmts: list[S.Stmt] = [S.AssignStmt(tmp, call, span)]
    stmts += [S.AssignStmt(v, E.TupleGetItemExpr(tmp, i, span), span) for i, v in enumerate(outputs)]
    return stmts

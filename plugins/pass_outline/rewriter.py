"""Replace the InCore scopes of one function by calls, threading renamed write targets through
control flow (docs/passes/outline_incore_scopes.md, control flow):

* a target renamed inside a loop and defined outside it becomes a real carry (one slot however many
  sibling scopes write it; the body yields the last value); a target that already is an iter_arg of
  the loop keeps its slot; a target created inside the body stays local; nested loops thread outward
  only while the target is defined outside;
* an if merges a target renamed in one or both branches (a missing else is synthesised and yields
  the value from before the if); a target the if already merges (the user rebinds it in the branch,
  so ConvertToSSA made a phi of its buffer) keeps that phi and gets no second one;
* at the function's top level nothing is threaded: the new name is already in scope.

Everything is one walk: each scope is analysed once and each statement rewritten once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pypto_core.analysis.lineage import Lineage
from pypto_core.errors import UserError
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import ParamDirection
from pypto_core.ir.fresh_names import FreshNames
from pypto_core.ir.names import VersionCounter, base_name, generated
from pypto_core.ir.utils import append_to_yield, flatten_to_stmts, make_body
from pypto_core.ir.visitor import IRMutator
from pypto_plugins.pass_outline.callee import build_outlined
from pypto_plugins.pass_outline.lanes import check_lane_values
from pypto_plugins.pass_outline.naming import OutlinedNames
from pypto_plugins.pass_outline.scope_analysis import ScopeInfo, analyze_scope
from pypto_plugins.pass_outline.walk import count_uses

Env = dict[int, E.Expr]


class _Subst(IRMutator):
    def __init__(self) -> None:
        self.env: Env = {}

    def visit_var(self, var: E.Var) -> E.Expr:
        return self.env.get(id(var), var)

    def visit_iter_arg(self, var: E.IterArg) -> E.Expr:
        return self.env.get(id(var), var)


class _Prepared:
    """Facts gathered in one walk before rewriting: definition order, scope analyses, written targets."""

    def __init__(self) -> None:
        self.def_index: dict[int, int] = {}
        self.start_index: dict[int, int] = {}
        self.written_in: dict[int, list[E.Var]] = {}
        self.scopes: dict[int, ScopeInfo] = {}
        self.counter = 0


class FunctionOutliner:
    def __init__(self, func: F.Function, names: OutlinedNames, callee_directions: Mapping[str, Sequence[ParamDirection]],
                 callee_returns: Mapping[str, list[int | None]], lineage: Lineage | None = None) -> None:
        self.func = func
        self.known_lineage = lineage  # the function's lineage when the caller already scanned it
        self.names = names
        self.callee_directions = callee_directions
        self.callee_returns = callee_returns
        self.subst = _Subst()
        self.prep = _Prepared()
        self.callees: list[F.Function] = []
        self.versions = VersionCounter()
        self.fresh = FreshNames(func)  # the caller's temporaries (`_tuple_tmp`, `_tuple_tmp_1`, ...)

    # -- preparation -------------------------------------------------------------------------------
    def prepare(self) -> None:
        from pypto_plugins.pass_outline.walk import OrderedWalk

        names: list[str] = []
        local: set[int] = set()

        def on_def(v: E.Var) -> None:
            local.add(id(v))
            names.append(v.name_hint)

        for p in self.func.params:
            on_def(p)
        OrderedWalk(lambda v: None, on_def).stmt(self.func.body)
        self.versions = VersionCounter(names)
        self.used_names: set[str] = set(names)
        self.local = local
        self.global_uses = count_uses(self.func.body)
        self.lineage = self.known_lineage or Lineage(self.callee_returns).scan(self.func.body)
        for p in self.func.params:
            self.prep.def_index[id(p)] = -1
        self._prepare(self.func.body, in_scope=False)

    def _define(self, v: E.Var) -> None:
        self.prep.def_index[id(v)] = self.prep.counter
        self.prep.counter += 1

    def _prepare(self, s: S.Stmt | None, in_scope: bool) -> list[E.Var]:
        """Assign definition indices; analyse scopes; return the targets scopes inside `s` write."""
        if s is None:
            return []
        written: list[E.Var] = []
        if isinstance(s, S.SeqStmts):
            for c in s.stmts:
                _extend(written, self._prepare(c, in_scope))
        elif isinstance(s, S.AssignStmt):
            self._define(s.var)
        elif isinstance(s, S.InCoreScopeStmt):
            if in_scope:
                raise UserError("OutlineIncoreScopes: nested InCore scope: a `with pl.at(level=pl.Level.CORE_GROUP)` "
                                "inside another one cannot be outlined; merge them or move the inner one out",
                                s.span)
            info = analyze_scope(s, self.global_uses, self.local, self.callee_directions, self.callee_returns)
            check_lane_values(s, info.live_outs)
            self.prep.scopes[id(s)] = info
            for h in info.hoisted:
                self._define(h.var)
            self._prepare(s.body, in_scope=True)
            written = list(info.written)
        elif isinstance(s, (S.ForStmt, S.WhileStmt, S.IfStmt)):
            self.prep.start_index[id(s)] = self.prep.counter
            if isinstance(s, S.ForStmt):
                self._define(s.loop_var)
            for a in getattr(s, "iter_args", ()):
                self._define(a)
            bodies = [s.then_body, s.else_body] if isinstance(s, S.IfStmt) else [s.body]
            for b in bodies:
                _extend(written, self._prepare(b, in_scope))
            for r in s.return_vars:
                self._define(r)
            self.prep.written_in[id(s)] = written
        elif isinstance(s, S.ScopeStmt):
            written = self._prepare(s.body, in_scope)
        return written

    # -- rewriting ---------------------------------------------------------------------------------
    def run(self) -> F.Function:
        self.prepare()
        if not self.prep.scopes:
            return self.func
        body = self.block(flatten_to_stmts(self.func.body), {})
        return F.Function(self.func.name, list(zip(self.func.params, self.func.param_directions)),
                          self.func.return_types, make_body(body, self.func.body.span), self.func.span,
                          self.func.func_type, self.func.level, self.func.role, self.func.attrs,
                          self.func.requires_runtime_binding)

    def sub(self, node: Any, env: Env) -> Any:
        if not env:
            return node
        self.subst.env = env
        return self.subst.visit(node)

    def block(self, stmts: Sequence[S.Stmt], env: Env) -> list[S.Stmt]:
        out: list[S.Stmt] = []
        for s in stmts:
            self.stmt(s, env, out)
        return out

    def stmt(self, s: S.Stmt, env: Env, out: list[S.Stmt]) -> None:
        if isinstance(s, S.SeqStmts):
            out.extend(self.block(flatten_to_stmts(s), env))
        elif isinstance(s, S.InCoreScopeStmt):
            self.outline(s, env, out)
        elif isinstance(s, S.ForStmt):
            self.loop(s, env, out)
        elif isinstance(s, S.WhileStmt):
            self.loop(s, env, out)
        elif isinstance(s, S.IfStmt):
            self.branch(s, env, out)
        elif isinstance(s, S.ScopeStmt):
            body = self.block(flatten_to_stmts(s.body), env)
            out.append(s.with_fields(body=make_body(body, s.span), attrs=self.sub(s.attrs, env)))
        else:
            out.append(self.sub(s, env))

    def outline(self, scope: S.InCoreScopeStmt, env: Env, out: list[S.Stmt]) -> None:
        info = self.prep.scopes[id(scope)]
        for h in info.hoisted:
            out.append(self.sub(h, env))
        args = [self.sub(v, env) for v in info.inputs]
        name = self.names.allocate(self.func.name, scope.name_hint)
        outlined = build_outlined(info, name, args, self.versions, self.callee_returns, self.fresh)
        self.callees.append(outlined.function)
        out.extend(outlined.caller_stmts)
        for orig, new in outlined.renames:
            env[id(orig)] = new

    def _carried(self, s: S.ForStmt | S.WhileStmt | S.IfStmt) -> list[E.Var]:
        start = self.prep.start_index[id(s)]
        own = {id(a) for a in getattr(s, "iter_args", ())}
        return [t for t in self.prep.written_in.get(id(s), [])
                if self.prep.def_index.get(id(t), -1) < start and id(t) not in own]

    def loop(self, s: S.ForStmt | S.WhileStmt, env: Env, out: list[S.Stmt]) -> None:
        carried = self._carried(s)
        body_env = dict(env)
        iters: list[E.IterArg] = []
        for a in s.iter_args:
            init = self.sub(a.initValue, env)
            na = a if init is a.initValue else E.IterArg(a.name_hint, a.type, init, a.span)
            if na is not a:
                body_env[id(a)] = na
            iters.append(na)
        carries: list[tuple[E.Var, E.IterArg, str, int]] = []
        for t in carried:
            current = env.get(id(t), t)
            base = base_name(t.name_hint)
            version = self._carry_version(base)
            ia = E.IterArg(generated(base, "iter", version), current.type, current, s.span)
            body_env[id(t)] = ia
            carries.append((t, ia, base, version))
        body_stmts = self.block(flatten_to_stmts(s.body), body_env)
        body = append_to_yield(body_stmts, [body_env[id(t)] for t, *_ in carries], s.span)
        rvs = [E.Var(generated(base, "rv", version), ia.type, s.span) for _, ia, base, version in carries]
        if isinstance(s, S.ForStmt):
            start, stop, step = (self.sub(e, env) for e in (s.start, s.stop, s.step))
            out.append(S.ForStmt(s.loop_var, start, stop, step, iters + [c[1] for c in carries], body,
                                 list(s.return_vars) + rvs, s.span, s.kind, self.sub(s.attrs, env),
                                 s.leading_comments))
        else:
            cond = self.sub(s.condition, body_env)
            out.append(S.WhileStmt(cond, iters + [c[1] for c in carries], body, list(s.return_vars) + rvs, s.span,
                                   s.leading_comments))
        for (t, *_), rv in zip(carries, rvs):
            env[id(t)] = rv

    def _carry_version(self, base: str) -> int:
        """The version the first new binding inside will take (docs/passes/outline_incore_scopes.md: out__iter_v1 / out__ssa_v1 /
        out__rv_v1), moved on while an enclosing loop already uses those carry names."""
        version = self.versions.next[base]
        while {generated(base, "iter", version), generated(base, "rv", version)} & self.used_names:
            version += 1
        self.used_names.update((generated(base, "iter", version), generated(base, "rv", version)))
        return version

    def branch(self, s: S.IfStmt, env: Env, out: list[S.Stmt]) -> None:
        cond = self.sub(s.condition, env)
        then_env, else_env = dict(env), dict(env)
        then_stmts = self.block(flatten_to_stmts(s.then_body), then_env)
        else_stmts = self.block(flatten_to_stmts(s.else_body), else_env) if s.else_body is not None else None
        carried: list[E.Var] = []
        for t in self._carried(s):
            slot = self._existing_phi(s, t, then_env, else_env)
            if slot is None:
                carried.append(t)
            else:
                env[id(t)] = slot  # docs/passes/outline_incore_scopes.md: a target that already has a slot gets no new one
        if carried and else_stmts is None:
            else_stmts = []  # synthesised else: yields the value from before the if
        then_vals = [then_env.get(id(t), t) for t in carried]
        else_vals = [else_env.get(id(t), t) for t in carried]
        then_body = append_to_yield(then_stmts, then_vals, s.span)
        else_body = append_to_yield(else_stmts, else_vals, s.span) if else_stmts is not None else None
        phis = []
        for t, v in zip(carried, then_vals):
            base = base_name(t.name_hint)
            phis.append(E.Var(generated(base, "phi", self.versions.take(base)), v.type, s.span))
        out.append(S.IfStmt(cond, then_body, else_body, list(s.return_vars) + phis, s.span, s.leading_comments))
        for t, phi in zip(carried, phis):
            env[id(t)] = phi

    def _existing_phi(self, s: S.IfStmt, target: E.Var, then_env: Env, else_env: Env) -> E.Var | None:
        """The return var of `s` that already merges `target`'s buffer: first one whose branches yield
        exactly the target's values at their ends, else one whose branch values are both versions of
        the target's buffer (the user rebinds it after the write)."""
        then_y, else_y = _trailing_yield(s.then_body), _trailing_yield(s.else_body)
        if then_y is None or else_y is None:
            return None
        pairs = list(zip(s.return_vars, then_y.value, else_y.value))
        want_then, want_else = then_env.get(id(target), target), else_env.get(id(target), target)
        for rv, a, b in pairs:
            if self.sub(a, then_env) is want_then and self.sub(b, else_env) is want_else:
                return rv
        root = self.lineage.root(target)
        for rv, a, b in pairs:
            if self.lineage.root(a) is root and self.lineage.root(b) is root:
                return rv
        return None


def _trailing_yield(body: S.Stmt | None) -> S.YieldStmt | None:
    stmts = flatten_to_stmts(body)
    return stmts[-1] if stmts and isinstance(stmts[-1], S.YieldStmt) else None


def _extend(acc: list[E.Var], items: list[E.Var]) -> None:
    for v in items:
        if not any(v is x for x in acc):
            acc.append(v)

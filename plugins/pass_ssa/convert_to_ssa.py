"""ConvertToSSA: every definition gets its own variable; loops and ifs carry what they reassign.

Naming (API.md 8.7): params and assignments `x__ssa_vN`, loop variables `i__idx_vN`, synthesised
carries `x__iter_vN` / `x__rv_vN` (one version number per carry), if-merges `x__phi_vN`; user-written
iter-arg and yield names are kept. Scopes and `pl.split_aiv` regions are transparent: names defined
inside stay visible after them, as the parser leaves them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pypto_core.errors import InternalError, UserError
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir import types as T
from pypto_core.ir.names import VersionCounter, base_name, generated
from pypto_core.ir.utils import append_to_yield, flatten_to_stmts, make_body
from pypto_core.ir.visitor import IRMutator
from pypto_core.passes.pass_base import Pass

Env = dict[int, E.Expr]


class _Renamer(IRMutator):
    """Replaces every variable use by its current SSA version (types included)."""

    def __init__(self, owner: SSAConverter) -> None:
        self.owner = owner
        self.env: Env = {}

    def visit_var(self, var: E.Var) -> E.Expr:
        hit = self.env.get(id(var))
        if hit is not None:
            return hit
        self.owner.check_in_scope(var)
        return var

    def visit_iter_arg(self, var: E.IterArg) -> E.Expr:
        return self.visit_var(var)


def assigned_vars(body: S.Stmt | None) -> list[E.Var]:
    """Variables (re)bound anywhere in a body, first binding first: these may need carries or phis."""
    out: list[E.Var] = []
    seen: set[int] = set()

    def add(v: E.Var) -> None:
        if id(v) not in seen:
            seen.add(id(v))
            out.append(v)

    def walk(s: S.Stmt | None) -> None:
        if s is None:
            return
        if isinstance(s, S.SeqStmts):
            for c in s.stmts:
                walk(c)
        elif isinstance(s, S.AssignStmt):
            add(s.var)
        elif isinstance(s, (S.ForStmt, S.WhileStmt)):
            walk(s.body)
            for v in s.return_vars:
                add(v)
        elif isinstance(s, S.IfStmt):
            walk(s.then_body)
            walk(s.else_body)
            for v in s.return_vars:
                add(v)
        elif isinstance(s, S.ScopeStmt):
            walk(s.body)

    walk(body)
    return out


def _has_loop_exit(body: S.Stmt) -> bool:
    """break/continue that belong to this loop (not to a nested one)."""
    for s in flatten_to_stmts(body):
        if isinstance(s, (S.BreakStmt, S.ContinueStmt)):
            return True
        if isinstance(s, S.IfStmt) and (_has_loop_exit(s.then_body) or (s.else_body and _has_loop_exit(s.else_body))):
            return True
        if isinstance(s, S.ScopeStmt) and _has_loop_exit(s.body):
            return True
    return False


class SSAConverter:
    def __init__(self, func: F.Function) -> None:
        self.func = func
        self.versions = VersionCounter()
        self.renamer = _Renamer(self)
        self.defined_in_function: set[int] = set()
        self.scoped_out: dict[int, str] = {}

    # -- names ---------------------------------------------------------------------------------
    def fresh(self, old: E.Var, role: str, typ: T.Type) -> E.Var:
        base = base_name(old.name_hint, old.span.to_string() if old.span.is_valid() else "")
        return E.Var(generated(base, role, self.versions.take(base)), typ, old.span)

    def kept(self, old: E.Var, typ: T.Type, init: E.Expr | None = None) -> E.Var:
        base_name(old.name_hint, old.span.to_string() if old.span.is_valid() else "")
        if init is not None:
            return E.IterArg(old.name_hint, typ, init, old.span)
        return E.Var(old.name_hint, typ, old.span)

    def check_in_scope(self, var: E.Var) -> None:
        where = self.scoped_out.get(id(var))
        if where is None:
            return
        if where.startswith("loop variable of "):
            raise UserError(f"ConvertToSSA: the loop variable '{var.name_hint}' is used after its loop "
                            f"({where[len('loop variable of '):]}); it only exists inside the loop: copy the value "
                            f"you need into a carried variable (init_values=... and pl.yield_)", var.span)
        raise UserError(f"ConvertToSSA: '{var.name_hint}' is defined inside {where} and used after it; "
                        f"define it before (e.g. give it an initial value) so it can be carried out",
                        var.span)

    # -- expressions -----------------------------------------------------------------------------
    def expr(self, e: E.Expr, env: Env) -> E.Expr:
        self.renamer.env = env
        return self.renamer.visit_expr(e)

    def typ(self, t: T.Type, env: Env) -> T.Type:
        self.renamer.env = env
        return self.renamer.visit_type(t)

    def value(self, v: Any, env: Env) -> Any:
        self.renamer.env = env
        return self.renamer.visit(v)

    # -- functions -------------------------------------------------------------------------------
    def run(self) -> F.Function:
        env: Env = {}
        for var in self.func.params:
            env[id(var)] = self.fresh(var, "ssa", self.typ(var.type, env))
        for v in assigned_vars(self.func.body):
            self.defined_in_function.add(id(v))
        params = [(env[id(p)], d) for p, d in zip(self.func.params, self.func.param_directions)]
        returns = [self.typ(t, env) for t in self.func.return_types]
        body = self.block(flatten_to_stmts(self.func.body), env)
        return F.Function(self.func.name, params, returns, make_body(body, self.func.body.span), self.func.span,
                          self.func.func_type, self.func.level, self.func.role, self.value(self.func.attrs, env),
                          self.func.requires_runtime_binding)

    # -- statements ------------------------------------------------------------------------------
    def block(self, stmts: Sequence[S.Stmt], env: Env) -> list[S.Stmt]:
        out: list[S.Stmt] = []
        last = len(stmts) - 1
        for i, s in enumerate(stmts):
            if isinstance(s, S.YieldStmt) and i != last:
                raise InternalError(f"ConvertToSSA: YieldStmt at position {i} of a {len(stmts)}-statement body; "
                                    f"a yield must be the last statement of its body")
            self.stmt(s, env, out)
        return out

    def stmt(self, s: S.Stmt, env: Env, out: list[S.Stmt]) -> None:
        if isinstance(s, S.SeqStmts):
            out.extend(self.block(flatten_to_stmts(s), env))
        elif isinstance(s, S.AssignStmt):
            value = self.expr(s.value, env)
            var = self.fresh(s.var, "ssa", self.typ(s.var.type, env))
            env[id(s.var)] = var
            self.scoped_out.pop(id(s.var), None)
            out.append(S.AssignStmt(var, value, s.span, s.leading_comments))
        elif isinstance(s, (S.EvalStmt, S.ReturnStmt, S.YieldStmt, S.BreakStmt, S.ContinueStmt)):
            out.append(self.value(s, env))
        elif isinstance(s, S.ForStmt):
            self.for_stmt(s, env, out)
        elif isinstance(s, S.WhileStmt):
            self.while_stmt(s, env, out)
        elif isinstance(s, S.IfStmt):
            self.if_stmt(s, env, out)
        elif isinstance(s, S.ScopeStmt):
            attrs = self.value(s.attrs, env)  # the scope's attrs name values from before its body
            body = self.block(flatten_to_stmts(s.body), env)
            out.append(s.with_fields(body=make_body(body, s.span), attrs=attrs))
        else:
            raise InternalError(f"ConvertToSSA does not know statement {type(s).__name__}")

    def _carries(self, body: S.Stmt, env: Env, own: Sequence[E.Var]) -> list[E.Var]:
        """Variables defined before the statement and rebound in its body."""
        own_ids = {id(v) for v in own}
        return [v for v in assigned_vars(body) if id(v) in env and id(v) not in own_ids]

    def _synth_iters(self, carried: list[E.Var], env: Env, body_env: Env) -> list[tuple[E.Var, E.IterArg, int, str]]:
        out = []
        for x in carried:
            current = env[id(x)]
            base = base_name(x.name_hint)
            v = self.versions.take(base)
            ia = E.IterArg(generated(base, "iter", v), current.type, current, x.span)
            body_env[id(x)] = ia
            out.append((x, ia, v, base))
        return out

    def _scope_out(self, body: S.Stmt, env: Env, where: str) -> None:
        for v in assigned_vars(body):
            if id(v) not in env:
                self.scoped_out[id(v)] = where

    def for_stmt(self, s: S.ForStmt, env: Env, out: list[S.Stmt]) -> None:
        start, stop, step = (self.expr(e, env) for e in (s.start, s.stop, s.step))
        carried = self._carries(s.body, env, s.iter_args)
        if carried and _has_loop_exit(s.body):
            raise UserError(f"ConvertToSSA: this loop rebinds {', '.join(repr(v.name_hint) for v in carried)} and "
                            f"also contains break/continue; carry the values explicitly with init_values and "
                            f"pl.yield_", s.span)
        body_env = dict(env)
        loop_var = self.fresh(s.loop_var, "idx", s.loop_var.type)
        body_env[id(s.loop_var)] = loop_var
        user_iters = []
        for a in s.iter_args:
            na = self.kept(a, self.typ(a.type, env), self.expr(a.initValue, env))
            body_env[id(a)] = na
            user_iters.append(na)
        synth = self._synth_iters(carried, env, body_env)
        stmts = self.block(flatten_to_stmts(s.body), body_env)
        body = append_to_yield(stmts, [body_env[id(x)] for x, *_ in synth], s.span)
        user_rvs = [self.kept(r, self.typ(r.type, env)) for r in s.return_vars]
        synth_rvs = [E.Var(generated(base, "rv", v), ia.type, x.span) for x, ia, v, base in synth]
        out.append(S.ForStmt(loop_var, start, stop, step, user_iters + [ia for _, ia, _, _ in synth], body,
                             user_rvs + synth_rvs, s.span, s.kind, s.attrs, s.leading_comments))
        self._bind_after(s.return_vars, user_rvs, synth, synth_rvs, env)
        self._scope_out(s.body, env, f"the loop at {s.span.to_string()}")
        self.scoped_out[id(s.loop_var)] = f"loop variable of the loop at {s.span.to_string()}"

    def _bind_after(self, old_rvs: Sequence[E.Var], user_rvs: list[E.Var], synth: list[Any],
                    synth_rvs: list[E.Var], env: Env) -> None:
        for r, nr in zip(old_rvs, user_rvs):
            env[id(r)] = nr
            self.scoped_out.pop(id(r), None)
        for (x, *_), rv in zip(synth, synth_rvs):
            env[id(x)] = rv

    def while_stmt(self, s: S.WhileStmt, env: Env, out: list[S.Stmt]) -> None:
        carried = self._carries(s.body, env, s.iter_args)
        if carried and _has_loop_exit(s.body):
            raise UserError(f"ConvertToSSA: this while loop rebinds "
                            f"{', '.join(repr(v.name_hint) for v in carried)} and also contains break/continue; "
                            f"use the pl.while_(init_values=...) form and carry them explicitly", s.span)
        body_env = dict(env)
        user_iters = []
        for a in s.iter_args:
            na = self.kept(a, self.typ(a.type, env), self.expr(a.initValue, env))
            body_env[id(a)] = na
            user_iters.append(na)
        synth = self._synth_iters(carried, env, body_env)
        cond = self.expr(s.condition, body_env)
        stmts = self.block(flatten_to_stmts(s.body), body_env)
        body = append_to_yield(stmts, [body_env[id(x)] for x, *_ in synth], s.span)
        user_rvs = [self.kept(r, self.typ(r.type, env)) for r in s.return_vars]
        synth_rvs = [E.Var(generated(base, "rv", v), ia.type, x.span) for x, ia, v, base in synth]
        out.append(S.WhileStmt(cond, user_iters + [ia for _, ia, _, _ in synth], body, user_rvs + synth_rvs,
                               s.span, s.leading_comments))
        self._bind_after(s.return_vars, user_rvs, synth, synth_rvs, env)
        self._scope_out(s.body, env, f"the while loop at {s.span.to_string()}")

    def if_stmt(self, s: S.IfStmt, env: Env, out: list[S.Stmt]) -> None:
        cond = self.expr(s.condition, env)
        then_env, else_env = dict(env), dict(env)
        then_stmts = self.block(flatten_to_stmts(s.then_body), then_env)
        else_stmts = self.block(flatten_to_stmts(s.else_body), else_env) if s.else_body is not None else None
        then_defs = {id(v) for v in assigned_vars(s.then_body)}
        else_defs = {id(v) for v in assigned_vars(s.else_body)}
        own = {id(r) for r in s.return_vars}
        merged: list[E.Var] = []
        for v in assigned_vars(S.SeqStmts([s.then_body] + ([s.else_body] if s.else_body else []))):
            if id(v) in own:
                continue
            if id(v) in env or (id(v) in then_defs and id(v) in else_defs):
                merged.append(v)
        then_vals = [then_env[id(v)] for v in merged]
        else_vals = [else_env[id(v)] if id(v) in else_env else env[id(v)] for v in merged]
        if merged and else_stmts is None:
            else_stmts = []  # synthesised else: yields the values from before the if (seed 000)
        then_body = append_to_yield(then_stmts, then_vals, s.span)
        else_body = append_to_yield(else_stmts, else_vals, s.span) if else_stmts is not None else None
        user_rvs = [self.kept(r, self.typ(r.type, env)) for r in s.return_vars]
        phis = []
        for v, tv in zip(merged, then_vals):
            base = base_name(v.name_hint)
            phis.append(E.Var(generated(base, "phi", self.versions.take(base)), tv.type, v.span))
        out.append(S.IfStmt(cond, then_body, else_body, user_rvs + phis, s.span, s.leading_comments))
        for r, nr in zip(s.return_vars, user_rvs):
            env[id(r)] = nr
        for v, phi in zip(merged, phis):
            env[id(v)] = phi
            self.scoped_out.pop(id(v), None)
        where = f"one branch of the if at {s.span.to_string()}"
        for v in assigned_vars(s.then_body) + assigned_vars(s.else_body):
            if id(v) not in env:
                self.scoped_out[id(v)] = where


class ConvertToSSA(Pass):
    """Rename every definition and thread reassigned variables through loop carries and if-merges."""

    name = "ConvertToSSA"
    factory_name = "convert_to_ssa"
    produced = ("SSAForm",)
    invalidated = ("NormalizedStmtStructure",)
    description = "Static single assignment: versioned names, loop carries and if merges (API.md 5.1)."

    def run(self, program: F.Program, ctx: Any) -> F.Program:
        return program.with_functions(SSAConverter(f).run() for f in program.functions.values())

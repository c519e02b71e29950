"""ConvertToSSA: every definition gets its own variable; loops and ifs carry what they reassign.

Naming (docs/dsl.md, the printed form): params and assignments `x__ssa_vN`, loop variables `i__idx_vN`, synthesised
carries of a rebound variable `x__iter_vN` / `x__rv_vN` (one version number per carry), carries of an
escaping variable `x__iter_vN` / `x__rv_vN+1` (two versions, drawn before the body's `x__ssa_vN+2`: PyPTO's
order), if-merges `x__phi_vN`; user-written iter-arg and yield names are kept. Scopes and `pl.split_aiv`
regions are transparent: names defined inside stay visible after them, as the parser leaves them (a
non-Runtime scope only cuts the promotion of escaping variables, escapes.py).

Order of the slots a loop or an if gets (PyPTO's order; docs/passes/convert_to_ssa.md, what it does): the user's iter_args /
return_vars first, then the synthesised carries / merges sorted by variable name, then the promoted
escaping variables (`escapes.py`), sorted by name too.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from typing import Any

from pypto_core.errors import InternalError, UserError
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir import types as T
from pypto_core.ir.names import VersionCounter, base_name, generated
from pypto_core.ir.utils import append_to_yield, collect_def_vars, flatten_to_stmts, make_body
from pypto_core.ir.visitor import IRMutator
from pypto_core.passes.pass_base import Pass
from pypto_plugins.pass_ssa.escapes import (
    EscapeSignal,
    ScopedOut,
    cuts_promotion,
    find_init_value,
    placeholder,
)

Env = dict[int, E.Expr]
Promotions = dict[int, list[E.Var]]  # id of a loop / if statement -> escaping variables it must carry out
_MAX_ATTEMPTS = 10_000


class _Renamer(IRMutator):
    """Replaces every variable use by its current SSA version (types included)."""

    def __init__(self, owner: SSAConverter) -> None:
        # A weak reference: the converter owns this renamer, and a cycle between them would keep the
        # converter's function (a whole program's IR) alive until the garbage collector runs.
        self._owner = weakref.ref(owner)
        self.env: Env = {}

    @property
    def owner(self) -> SSAConverter:
        owner = self._owner()
        assert owner is not None, "the renamer outlived its SSAConverter"
        return owner

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


def by_name(vs: Sequence[E.Var]) -> list[E.Var]:
    """PyPTO orders synthesised slots by variable name (docs/passes/convert_to_ssa.md); ties keep first-binding order."""
    return sorted(vs, key=lambda v: base_name(v.name_hint))


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


def convert_function(func: F.Function) -> F.Function:
    """Convert one function, discovering the escaping variables to promote attempt by attempt.

    An attempt that meets a use of a variable some loop or if defined only inside raises EscapeSignal;
    the next attempt promotes it at that statement. Each retry adds one (statement, variable) pair, so
    this ends after at most as many attempts as there are such pairs.
    """
    promotions: Promotions = {}
    for _ in range(_MAX_ATTEMPTS):
        try:
            return SSAConverter(func, promotions).run()
        except EscapeSignal as esc:
            pending = promotions.setdefault(id(esc.stmt), [])
            if any(v is esc.var for v in pending):
                raise InternalError(f"ConvertToSSA: '{esc.var.name_hint}' was promoted at {esc.stmt.span.to_string()} "
                                    f"but is still out of scope after it") from None
            pending.append(esc.var)
    raise InternalError(f"ConvertToSSA: function '{func.name}' needed more than {_MAX_ATTEMPTS} promotion attempts")


class SSAConverter:
    """One conversion attempt of a function, with the promotions earlier attempts found."""

    def __init__(self, func: F.Function, promotions: Promotions | None = None) -> None:
        self.func = func
        self.promotions: Promotions = promotions if promotions is not None else {}
        self.versions = VersionCounter()
        self.renamer = _Renamer(self)
        self.scoped_out: dict[int, ScopedOut] = {}
        self.active_scopes: list[int] = []  # ids of the cutting scopes around the statement being converted
        self.originals: dict[int, E.Var] = {id(v): v for v in [*func.params, *collect_def_vars(func.body)]}

    # -- names ---------------------------------------------------------------------------------
    def fresh(self, old: E.Var, role: str, typ: T.Type) -> E.Var:
        base = base_name(old.name_hint, span=old.span)
        return E.Var(generated(base, role, self.versions.take(base)), typ, old.span)

    def kept(self, old: E.Var, typ: T.Type, init: E.Expr | None = None) -> E.Var:
        base_name(old.name_hint, span=old.span)
        if init is not None:
            return E.IterArg(old.name_hint, typ, init, old.span)
        return E.Var(old.name_hint, typ, old.span)

    # -- scoping -------------------------------------------------------------------------------
    def check_in_scope(self, var: E.Var) -> None:
        """A use of `var` where no version of it is visible: an escape to promote, a use the scope cut leaves
        unversioned, or a user error."""
        info = self.scoped_out.get(id(var))
        if info is None:
            return
        if info.loop_var:
            raise UserError(f"ConvertToSSA: the loop variable '{var.name_hint}' is used after its loop "
                            f"({info.where}); it only exists inside the loop: copy the value "
                            f"you need into a carried variable (init_values=... and pl.yield_)", var.span)
        if any(scope not in self.active_scopes for scope in info.scopes):
            # PyPTO's scope cut (escapes.py): defined in a loop or branch inside a non-Runtime scope and used
            # after the scope: not promoted, the use keeps the original Var (UseAfterDef reports it).
            return
        raise EscapeSignal(var, info.stmt)

    def _scope_out(self, stmt: S.Stmt, body: S.Stmt | None, env: Env, where: str) -> None:
        for v in assigned_vars(body):
            if id(v) not in env:
                self.scoped_out[id(v)] = ScopedOut(where, stmt, scopes=tuple(self.active_scopes))

    def escape_init(self, var: E.Var, env: Env) -> E.Expr:
        """The value visible before the statement that the escaping `var` starts from (rules in escapes.py)."""
        visible = {key: (self.originals[key], value) for key, value in env.items() if key in self.originals}
        found = find_init_value(var, self.func.params, self.func.param_directions, visible)
        return found if found is not None else placeholder(var, self.typ(var.type, env))

    # -- expressions -----------------------------------------------------------------------------
    def expr(self, e: E.Expr, env: Env) -> E.Expr:
        self.renamer.env = env
        return self.renamer.visit_expr(e)

    def typ(self, t: T.Type, env: Env) -> T.Type:
        if not t.has_vars:
            return t  # nothing to rename (most types): no walk
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
            cut = cuts_promotion(s)
            if cut:
                self.active_scopes.append(id(s))
            try:
                body = self.block(flatten_to_stmts(s.body), env)
            finally:
                if cut:
                    self.active_scopes.pop()
            out.append(s.with_fields(body=make_body(body, s.span), attrs=attrs))
        else:
            raise InternalError(f"ConvertToSSA does not know statement {type(s).__name__}")

    # -- loops -----------------------------------------------------------------------------------
    def _carries(self, s: S.ForStmt | S.WhileStmt, env: Env) -> list[tuple[E.Var, E.Expr, bool]]:
        """(variable, init, escaping) of every synthesised carry: rebound outer variables, then promoted escapes."""
        own_ids = {id(v) for v in s.iter_args}
        rebound = [v for v in assigned_vars(s.body) if id(v) in env and id(v) not in own_ids]
        escaping = [v for v in self.promotions.get(id(s), []) if id(v) not in env]
        return ([(v, env[id(v)], False) for v in by_name(rebound)]
                + [(v, self.escape_init(v, env), True) for v in by_name(escaping)])

    def _check_loop_exit(self, s: S.ForStmt | S.WhileStmt, carried: list[tuple[E.Var, E.Expr, bool]],
                         fix: str) -> None:
        if carried and _has_loop_exit(s.body):
            names = ", ".join(repr(v.name_hint) for v, _, _ in carried)
            raise UserError(f"ConvertToSSA: this {'while ' if isinstance(s, S.WhileStmt) else ''}loop rebinds "
                            f"{names} and also contains break/continue; {fix}", s.span)

    def _user_iters(self, s: S.ForStmt | S.WhileStmt, env: Env, body_env: Env) -> list[E.IterArg]:
        out = []
        for a in s.iter_args:
            na = self.kept(a, self.typ(a.type, env), self.expr(a.initValue, env))
            body_env[id(a)] = na
            out.append(na)  # type: ignore[arg-type]
        return out

    def _synth_iters(self, carried: list[tuple[E.Var, E.Expr, bool]], body_env: Env
                     ) -> list[tuple[E.Var, E.IterArg, int]]:
        """(variable, iter_arg, version of its return var): a rebound variable's carry has one version, an
        escaping one's iter_arg and return var take one each (`x__iter_vN`, `x__rv_vN+1`, PyPTO's names)."""
        out = []
        for x, init, escaping in carried:
            base = base_name(x.name_hint, span=x.span)
            v = self.versions.take(base)
            rv = self.versions.take(base) if escaping else v
            ia = E.IterArg(generated(base, "iter", v), init.type, init, x.span)
            body_env[id(x)] = ia
            out.append((x, ia, rv))
        return out

    def _loop_body(self, body: S.Stmt, user_iters: list[E.IterArg], synth: list[tuple[E.Var, E.IterArg, int]],
                   body_env: Env, span: Any) -> S.Stmt:
        stmts = self.block(flatten_to_stmts(body), body_env)
        values = [body_env[id(x)] for x, *_ in synth]
        if user_iters and not (stmts and isinstance(stmts[-1], S.YieldStmt)):
            # A carried loop written without a yield keeps each carry (docs/dsl.md): the yield written for it
            # gives the declared carries unchanged, then any synthesised ones.
            values = [*user_iters, *values]
        return append_to_yield(stmts, values, span)

    def _finish_loop(self, s: S.ForStmt | S.WhileStmt, synth: list[tuple[E.Var, E.IterArg, int]], env: Env,
                     where: str) -> tuple[list[E.Var], list[E.Var]]:
        """Bind the loop's results after it; returns (user return vars, synthesised return vars)."""
        user_rvs = [self.kept(r, self.typ(r.type, env)) for r in s.return_vars]
        synth_rvs = [E.Var(generated(base_name(x.name_hint, span=x.span), "rv", v), ia.type, x.span) for x, ia, v in synth]
        for r, nr in zip(s.return_vars, user_rvs):
            env[id(r)] = nr
            self.scoped_out.pop(id(r), None)
        for (x, _, _), rv in zip(synth, synth_rvs):
            env[id(x)] = rv
            self.scoped_out.pop(id(x), None)
        self._scope_out(s, s.body, env, where)
        return user_rvs, synth_rvs

    def for_stmt(self, s: S.ForStmt, env: Env, out: list[S.Stmt]) -> None:
        where = f"the loop at {s.span.to_string()}"
        start, stop, step = (self.expr(e, env) for e in (s.start, s.stop, s.step))
        carried = self._carries(s, env)
        self._check_loop_exit(s, carried, "carry the values explicitly with init_values and pl.yield_")
        body_env = dict(env)
        loop_var = self.fresh(s.loop_var, "idx", s.loop_var.type)
        body_env[id(s.loop_var)] = loop_var
        user_iters = self._user_iters(s, env, body_env)
        synth = self._synth_iters(carried, body_env)
        body = self._loop_body(s.body, user_iters, synth, body_env, s.span)
        user_rvs, synth_rvs = self._finish_loop(s, synth, env, where)
        out.append(S.ForStmt(loop_var, start, stop, step, user_iters + [ia for _, ia, _ in synth], body,
                             user_rvs + synth_rvs, s.span, s.kind, s.attrs, s.leading_comments))
        self.scoped_out[id(s.loop_var)] = ScopedOut(f"the loop at {s.span.to_string()}", s, loop_var=True,
                                                    scopes=tuple(self.active_scopes))

    def while_stmt(self, s: S.WhileStmt, env: Env, out: list[S.Stmt]) -> None:
        where = f"the while loop at {s.span.to_string()}"
        carried = self._carries(s, env)
        self._check_loop_exit(s, carried, "use the pl.while_(init_values=...) form and carry them explicitly")
        body_env = dict(env)
        user_iters = self._user_iters(s, env, body_env)
        synth = self._synth_iters(carried, body_env)
        cond = self.expr(s.condition, body_env)
        body = self._loop_body(s.body, user_iters, synth, body_env, s.span)
        user_rvs, synth_rvs = self._finish_loop(s, synth, env, where)
        out.append(S.WhileStmt(cond, user_iters + [ia for _, ia, _ in synth], body, user_rvs + synth_rvs,
                               s.span, s.leading_comments))

    # -- ifs -------------------------------------------------------------------------------------
    def _merges(self, s: S.IfStmt, env: Env) -> tuple[list[E.Var], list[E.Var]]:
        """(merged, escaping): rebound outer variables and both-branch definitions; promoted escapes."""
        merged = self._merged_vars(s, set(env))
        merged_ids = {id(v) for v in merged}
        escaping = [v for v in self.promotions.get(id(s), []) if id(v) not in merged_ids and id(v) not in env]
        return by_name(merged), by_name(escaping)

    def _merged_vars(self, s: S.IfStmt, visible: set[int]) -> list[E.Var]:
        """The variables an if merges: those it rebinds (visible before it) and those both branches define at
        the branch's own level, where a nested if defines only what it merges itself (PyPTO's rule,
        docs/passes/convert_to_ssa.md, if merges)."""
        then_defs = self._branch_defs(s.then_body, visible)
        else_defs = self._branch_defs(s.else_body, visible)
        own = {id(r) for r in s.return_vars}
        both = assigned_vars(S.SeqStmts([s.then_body] + ([s.else_body] if s.else_body else [])))
        return [v for v in both if id(v) not in own
                and (id(v) in visible or (id(v) in then_defs and id(v) in else_defs))]

    def _branch_defs(self, body: S.Stmt | None, visible: set[int]) -> set[int]:
        """Ids of the variables a branch defines at its own level, in statement order: assignments, loops
        (as before: what their bodies bind), transparent scopes, and a nested if's return vars and merges."""
        defs: set[int] = set()

        def walk(st: S.Stmt | None) -> None:
            if st is None:
                return
            if isinstance(st, S.SeqStmts):
                for c in st.stmts:
                    walk(c)
            elif isinstance(st, S.ScopeStmt):
                walk(st.body)
            elif isinstance(st, S.IfStmt):
                defs.update(id(r) for r in st.return_vars)
                defs.update(id(v) for v in self._merged_vars(st, visible | defs))
                defs.update(id(v) for v in self.promotions.get(id(st), []))
            elif isinstance(st, (S.AssignStmt, S.ForStmt, S.WhileStmt)):
                defs.update(id(v) for v in assigned_vars(st))

        walk(body)
        return defs

    def _branch_value(self, v: E.Var, branch_env: Env) -> E.Expr:
        hit = branch_env.get(id(v))
        if hit is None:
            self.check_in_scope(v)  # defined in both branches, in one only inside a nested statement
            if id(v) in self.scoped_out:
                return v  # the scope cut (escapes.py): the branch yields the unversioned Var
            raise InternalError(f"ConvertToSSA: no value of '{v.name_hint}' at the end of an if branch")
        return hit

    def if_stmt(self, s: S.IfStmt, env: Env, out: list[S.Stmt]) -> None:
        where = f"one branch of the if at {s.span.to_string()}"
        cond = self.expr(s.condition, env)
        merged, escaping = self._merges(s, env)
        then_env, else_env = dict(env), dict(env)
        for v in escaping:
            # Both branches start from the value before the if: the one not defining it yields it.
            then_env[id(v)] = else_env[id(v)] = self.escape_init(v, env)
        slots = merged + escaping
        # Each branch's values are read right after it: what scoped a value out must still be known.
        scoped_before = dict(self.scoped_out)
        then_stmts = self.block(region_yield_out(flatten_to_stmts(s.then_body)), then_env)
        then_vals = [self._branch_value(v, then_env) for v in slots]
        # The else path does not see what the then path defined: a variable scoped out before the if and
        # defined in the then branch is still out of scope in the else branch (docs/passes/convert_to_ssa.md).
        scoped_after_then, self.scoped_out = self.scoped_out, scoped_before
        else_stmts = (self.block(region_yield_out(flatten_to_stmts(s.else_body)), else_env)
                      if s.else_body is not None else None)
        else_vals = [self._branch_value(v, else_env) for v in slots]
        self.scoped_out = {**scoped_after_then, **self.scoped_out}
        if slots and else_stmts is None:
            else_stmts = []  # synthesised else: yields the values from before the if (docs/passes/outline_incore_scopes.md)
        then_body = append_to_yield(then_stmts, then_vals, s.span)
        else_body = append_to_yield(else_stmts, else_vals, s.span) if else_stmts is not None else None
        user_rvs = [self.kept(r, self.typ(r.type, env)) for r in s.return_vars]
        phis = []
        for v, tv in zip(slots, then_vals):
            base = base_name(v.name_hint, span=v.span)
            phis.append(E.Var(generated(base, "phi", self.versions.take(base)), tv.type, v.span))
        out.append(S.IfStmt(cond, then_body, else_body, user_rvs + phis, s.span, s.leading_comments))
        for r, nr in zip(s.return_vars, user_rvs):
            env[id(r)] = nr
        for v, phi in zip(slots, phis):
            env[id(v)] = phi
            self.scoped_out.pop(id(v), None)
        for body in (s.then_body, s.else_body):
            self._scope_out(s, body, env, where)


def region_yield_out(stmts: list[S.Stmt]) -> list[S.Stmt]:
    """A branch ending in a pl.split_aiv region whose body ends with the branch's yield (PyPTO's printed form,
    docs/dsl.md, if and yield): the yield moves after the region, where every later pass and the machine read a branch's
    yield; the region's values stay visible after it (docs/passes/convert_to_ssa.md, if merges)."""
    if not stmts or not isinstance(stmts[-1], S.SplitAivScopeStmt):
        return stmts
    region = stmts[-1]
    inner = flatten_to_stmts(region.body)
    if not inner or not isinstance(inner[-1], S.YieldStmt):
        return stmts
    return [*stmts[:-1], region.with_fields(body=make_body(inner[:-1], region.span)), inner[-1]]


class ConvertToSSA(Pass):
    """Rename every definition and thread reassigned variables through loop carries and if-merges."""

    name = "ConvertToSSA"
    factory_name = "convert_to_ssa"
    produced = ("SSAForm",)
    invalidated = ("NormalizedStmtStructure",)
    description = "Static single assignment: versioned names, loop carries and if merges (docs/passes/convert_to_ssa.md)."

    def run(self, program: F.Program, ctx: Any) -> F.Program:
        return program.with_functions(convert_function(f) for f in program.functions.values())

"""UseAfterDef: every use of a Var is preceded by a definition on the way to it (scope rules in `_walk`).

Before ConvertToSSA a Var is a mutable name, and a definition inside a loop body or an if branch
stays visible after the statement, as the DSL's names do (docs/dsl.md, loops and carries: a variable assigned in
the body may be used after the loop). IR built directly, or by passes, uses that too -- `out_0 = tile.store(t, [i, 0], out)` in
a loop and `return out_0` after it -- and ConvertToSSA turns it into a carry or a phi
(docs/passes/convert_to_ssa.md, escaping variables), so the check that runs before ConvertToSSA accepts it, as PyPTO's
does, where ConvertToSSA can carry the value: where it cannot (nothing of the variable's type to start
from, or a loop inside a `pl.at` scope and a use after the scope: `escaping.py`), ConvertToSSA would leave
the use reading a Var nothing defines (`x__FREE_VAR`), and the finding is reported on the program as
written. Loop variables and iter_args never leak: they only exist inside their loop.

`strict=True` is the dominance rule that holds after ConvertToSSA: a definition inside a loop body or
a branch is visible only there (the SSAForm verifier checks the same on SSA programs).
"""

from __future__ import annotations

from dataclasses import dataclass

from pypto_core.ir import expr as E
from pypto_core.ir import stmt as S
from pypto_core.ir.function import Function
from pypto_core.ir.names import split_generated
from pypto_core.ir.span import Span
from pypto_core.ir.utils import collect_def_vars
from pypto_core.passes.verifier_registry import Diagnostic, error
from pypto_core.passes.verifiers._walk import ScopedWalk, functions
from pypto_core.passes.verifiers.escaping import cuts_promotion, find_init_value, fix_for

RULE = "UseAfterDef"


@dataclass(frozen=True)
class _Leak:
    """How a variable became visible after `stmt` (a loop or an if that defines it only inside)."""

    stmt: S.Stmt
    visible: dict[int, tuple[E.Var, E.Expr]]  # what was visible before `stmt` (init candidates)
    scopes: tuple[S.ScopeStmt, ...]  # the cutting scopes around `stmt`


def _where(stmt: S.Stmt) -> str:
    at = stmt.span.to_string()
    return f"one branch of the if at {at}" if isinstance(stmt, S.IfStmt) else f"the loop at {at}"


class _UseAfterDefWalk(ScopedWalk):
    def __init__(self, func: Function, out: list[Diagnostic], strict: bool) -> None:
        super().__init__(func)
        self.out = out
        self.strict = strict
        defs = collect_def_vars(func.body)
        self.defined_anywhere = {id(v) for v in defs}
        # Base names of the variables defined here (`x` of `x__ssa_v2`): a never-defined Var of such a name
        # is a value ConvertToSSA could not carry to its use.
        self.versioned_bases = {split_generated(v.name_hint)[0] for v in defs}
        self.reported: set[int] = set()
        # One entry per enclosing loop / if: the body definitions that become visible after it.
        self.leaks: list[dict[int, E.Var]] = []
        # Parallel to `scopes`: the variables a scope holds only because they leaked into it.
        self.leaked: list[dict[int, _Leak]] = [{}]
        self.cut_scopes: list[S.ScopeStmt] = []
        self.popped: tuple[dict[int, _Leak], dict[int, _Leak]] = ({}, {})
        self.if_spans: list[Span] = []
        self.open_stmts: list[S.Stmt] = []  # the loops and ifs around the statement being walked
        self.scope_context: dict[int, set[int]] = {}  # id of a cutting scope -> ids of the loops / ifs around it
        # Scope-cut findings wait for the end of the function: a use after a loop or an if around the scope
        # promotes the variable there, which carries it through the scope (ConvertToSSA's later attempt).
        self.pending_cuts: dict[int, tuple[S.ScopeStmt, Diagnostic]] = {}

    # -- scopes ------------------------------------------------------------------------------------------
    def push(self) -> None:
        super().push()
        self.leaked.append({})

    def pop(self) -> dict[int, E.Var]:
        self.popped = (self.popped[1], self.leaked.pop())  # an if's two branches, for after_if
        return super().pop()

    def leaks_holding(self, var: E.Var) -> dict[int, _Leak] | None:
        """The leak record of the innermost scope holding `var`: it says whether only a leak makes `var`
        visible here."""
        for scope, leaked in zip(reversed(self.scopes), reversed(self.leaked)):
            if id(var) in scope:
                return leaked
        return None

    # -- hooks -------------------------------------------------------------------------------------------
    def on_use(self, var: E.Var, span: Span) -> None:
        if id(var) in self.reported:
            return
        if self.visible(var):
            leaked = self.leaks_holding(var)
            leak = leaked.get(id(var)) if leaked is not None else None
            if leak is not None and self.check_carried(var, leak, span):
                # ConvertToSSA carries it out of `leak.stmt` for this use: visible from there on, as defined.
                del leaked[id(var)]  # type: ignore[index]
            return
        self.reported.add(id(var))  # one finding per variable is enough to act on
        name = var.name_hint
        if id(var) in self.defined_anywhere:
            message = (f"variable '{name}' is used where its definition does not dominate the use (defined later, "
                       f"or inside a loop body or a branch it is not carried out of) in function '{self.func.name}'")
        elif name in self.versioned_bases:
            # ConvertToSSA's placeholder or a use the scope cut left unversioned (docs/passes/convert_to_ssa.md,
            # escaping variables): the variable is assigned, but only where no value reaches this use.
            message = (f"variable '{name}' is used but never defined in function '{self.func.name}' (it prints as "
                       f"'{name}__FREE_VAR'): it is assigned only inside a loop or one branch of an if (or a loop "
                       f"inside a pl.at scope that ends before this use), and nothing gives it a value on the "
                       f"way here; {fix_for()}")
        else:
            message = f"variable '{name}' is used but never defined in function '{self.func.name}'"
        self.out.append(error(RULE, message, span))

    def check_carried(self, var: E.Var, leak: _Leak, span: Span) -> bool:
        """A use of a value defined only inside `leak.stmt`: ConvertToSSA must be able to carry it here
        (True), else the finding (False)."""
        name, where = var.name_hint, _where(leak.stmt)
        closed = next((sc for sc in leak.scopes if not any(sc is c for c in self.cut_scopes)), None)
        if closed is not None:
            if id(var) not in self.pending_cuts:
                message = (f"variable '{name}' is assigned only inside {where}, which is inside the scope at "
                           f"{closed.span.to_string()}, and used after that scope in function '{self.func.name}': "
                           f"a value is not carried out of a scope from a loop or a branch inside it, so this use "
                           f"would read '{name}__FREE_VAR' after ConvertToSSA; {fix_for(leak.stmt)}")
                self.pending_cuts[id(var)] = (closed, error(RULE, message, span))
            return False
        pending = self.pending_cuts.get(id(var))
        if pending is not None and id(leak.stmt) in self.scope_context.get(id(pending[0]), ()):
            del self.pending_cuts[id(var)]  # carried out of a statement around the scope: through it too
        if find_init_value(var, self.func.params, self.func.param_directions, leak.visible) is None:
            other = "the other branch runs" if isinstance(leak.stmt, S.IfStmt) else "the loop runs zero times"
            message = (f"variable '{name}' is assigned only inside {where} and used after it in function "
                       f"'{self.func.name}', and nothing before it can stand for it when {other}: no Out/InOut "
                       f"parameter and no variable visible there has its type, so this use would read "
                       f"'{name}__FREE_VAR' after ConvertToSSA; {fix_for(leak.stmt)}")
        else:
            return True
        self.reported.add(id(var))
        self.out.append(error(RULE, message, span))
        return False

    def on_define(self, var: E.Var, span: Span) -> None:
        self.leaked[-1].pop(id(var), None)  # defined here: later uses in this scope are dominated
        if self.leaks:
            self.leaks[-1][id(var)] = var

    def after_if(self, then_defs: dict[int, E.Var], else_defs: dict[int, E.Var] | None) -> None:
        if else_defs is None:
            return
        then_leaks, else_leaks = self.popped
        for key, var in then_defs.items():
            if key in else_defs and not any(isinstance(getattr(leaks.get(key), "stmt", None), S.IfStmt)
                                            for leaks in (then_leaks, else_leaks)):
                # A branch holding it only from one branch of a nested if does not define it at its own level:
                # no merge here either (PyPTO's rule, docs/passes/convert_to_ssa.md, if merges).
                # Both branches define it: a merge, no escape -- each branch's yield of it is a use there.
                for leaks in (then_leaks, else_leaks):
                    leak = leaks.get(key)
                    if leak is not None and id(var) not in self.reported:
                        self.check_carried(var, leak, self.if_spans[-1] if self.if_spans else self.func.span)
                self.scopes[-1][key] = var
                self.leaked[-1].pop(key, None)

    def run(self) -> None:
        super().run()
        self.out.extend(diag for _, diag in self.pending_cuts.values())

    def stmt(self, s: S.Stmt | None) -> None:
        if isinstance(s, S.ScopeStmt) and cuts_promotion(s):
            self.scope_context[id(s)] = {id(o) for o in self.open_stmts}
            self.cut_scopes.append(s)
            try:
                super().stmt(s)
            finally:
                self.cut_scopes.pop()
            return
        if self.strict or not isinstance(s, (S.ForStmt, S.WhileStmt, S.IfStmt)):
            super().stmt(s)
            return
        self.leaks.append({})
        self.if_spans.append(s.span)
        self.open_stmts.append(s)
        try:
            super().stmt(s)
        finally:
            self.if_spans.pop()
            self.open_stmts.pop()
        leaked = self.leaks.pop()
        info: _Leak | None = None
        for key, var in leaked.items():
            if self.visible(var) and key not in self.leaked[-1]:
                continue  # visible before (or a merge of both branches): no escape
            if info is None:
                info = self._leak_info(s, leaked)
            self.scopes[-1][key] = var
            self.leaked[-1][key] = info
        if self.leaks:
            self.leaks[-1].update(leaked)  # visible after the enclosing statement too

    def _leak_info(self, s: S.Stmt, leaked: dict[int, E.Var]) -> _Leak:
        own = {id(v) for v in getattr(s, "return_vars", ())} | set(leaked)
        visible = {key: (var, var) for scope in self.scopes for key, var in scope.items() if key not in own}
        return _Leak(s, visible, tuple(self.cut_scopes))


def verify_use_after_def(program: object, strict: bool = False) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for func in functions(program):  # type: ignore[arg-type]
        _UseAfterDefWalk(func, out, strict).run()
    return out

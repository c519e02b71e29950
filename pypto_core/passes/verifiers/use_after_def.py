"""UseAfterDef: every use of a Var is preceded by a definition on the way to it (scope rules in `_walk`).

Before ConvertToSSA a Var is a mutable name, and a definition inside a loop body or an if branch
stays visible after the statement, as the DSL's names do (docs/dsl.md, loops and carries: a variable assigned in
the body may be used after the loop). IR built directly, or by passes, uses that too -- `out_0 = tile.store(t, [i, 0], out)` in
a loop and `return out_0` after it -- and ConvertToSSA turns it into a carry or a phi
(docs/passes/convert_to_ssa.md, what it does), so the check that runs before ConvertToSSA accepts it, as PyPTO's does. Loop
variables and iter_args never leak: they only exist inside their loop.

`strict=True` is the dominance rule that holds after ConvertToSSA: a definition inside a loop body or
a branch is visible only there (the SSAForm verifier checks the same on SSA programs).
"""

from __future__ import annotations

from pypto_core.ir import expr as E
from pypto_core.ir import stmt as S
from pypto_core.ir.function import Function
from pypto_core.ir.span import Span
from pypto_core.ir.utils import collect_def_vars
from pypto_core.passes.verifier_registry import Diagnostic, error
from pypto_core.passes.verifiers._walk import ScopedWalk, functions

RULE = "UseAfterDef"


class _UseAfterDefWalk(ScopedWalk):
    def __init__(self, func: Function, out: list[Diagnostic], strict: bool) -> None:
        super().__init__(func)
        self.out = out
        self.strict = strict
        self.defined_anywhere = {id(v) for v in collect_def_vars(func.body)}
        self.reported: set[int] = set()
        # One entry per enclosing loop / if: the body definitions that become visible after it.
        self.leaks: list[dict[int, E.Var]] = []
        self.loop_vars: set[int] = set()

    def on_use(self, var: E.Var, span: Span) -> None:
        if self.visible(var) or id(var) in self.reported:
            return
        self.reported.add(id(var))  # one finding per variable is enough to act on
        if id(var) in self.defined_anywhere:
            why = "is used where its definition does not dominate the use (defined later, or inside a loop " \
                  "body or a branch it is not carried out of)"
        else:
            why = "is used but never defined"
        self.out.append(error(RULE, f"variable '{var.name_hint}' {why} in function '{self.func.name}'", span))

    def on_define(self, var: E.Var, span: Span) -> None:
        if self.leaks and not isinstance(var, E.IterArg) and id(var) not in self.loop_vars:
            self.leaks[-1][id(var)] = var

    def after_if(self, then_defs: dict[int, E.Var], else_defs: dict[int, E.Var] | None) -> None:
        if else_defs is None:
            return
        for key, var in then_defs.items():
            if key in else_defs:
                self.scopes[-1][key] = var

    def stmt(self, s: S.Stmt | None) -> None:
        if self.strict or not isinstance(s, (S.ForStmt, S.WhileStmt, S.IfStmt)):
            super().stmt(s)
            return
        if isinstance(s, S.ForStmt):
            self.loop_vars.add(id(s.loop_var))
        self.leaks.append({})
        super().stmt(s)
        leaked = self.leaks.pop()
        for key, var in leaked.items():
            self.scopes[-1].setdefault(key, var)
        if self.leaks:
            self.leaks[-1].update(leaked)  # visible after the enclosing statement too


def verify_use_after_def(program: object, strict: bool = False) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for func in functions(program):  # type: ignore[arg-type]
        _UseAfterDefWalk(func, out, strict).run()
    return out

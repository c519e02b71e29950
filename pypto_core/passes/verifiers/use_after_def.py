"""UseAfterDef: every use of a Var is dominated by a definition (scope rules in `_walk`).

Before ConvertToSSA a variable assigned in both branches of an if is one Var defined on both paths,
so it counts as defined after the if.
"""

from __future__ import annotations

from pypto_core.ir import expr as E
from pypto_core.ir.function import Function
from pypto_core.ir.span import Span
from pypto_core.ir.utils import collect_def_vars
from pypto_core.passes.verifier_registry import Diagnostic, error
from pypto_core.passes.verifiers._walk import ScopedWalk, functions

RULE = "UseAfterDef"


class _UseAfterDefWalk(ScopedWalk):
    def __init__(self, func: Function, out: list[Diagnostic]) -> None:
        super().__init__(func)
        self.out = out
        self.defined_anywhere = {id(v) for v in collect_def_vars(func.body)}
        self.reported: set[int] = set()

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

    def after_if(self, then_defs: dict[int, E.Var], else_defs: dict[int, E.Var] | None) -> None:
        if else_defs is None:
            return
        for key, var in then_defs.items():
            if key in else_defs:
                self.scopes[-1][key] = var


def verify_use_after_def(program: object) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for func in functions(program):  # type: ignore[arg-type]
        _UseAfterDefWalk(func, out).run()
    return out

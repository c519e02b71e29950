"""Names for the variables a pass adds: derived from a user's name, never one the function already has."""

from __future__ import annotations

from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir.names import split_generated
from pypto_core.ir.utils import collect_def_vars


def user_base(var: E.Expr) -> str:
    """The name a user wrote for a variable: `x__ssa_v3` -> `x` (a helper's name builds on it)."""
    hint = getattr(var, "name_hint", "") or "v"
    return split_generated(hint)[0] or hint


class FreshNames:
    """Names no variable of a function has yet.

    SSAForm's verifier rejects a name that shadows one in an enclosing scope, so `x_Left` made in a
    loop body must not repeat an `x_Left` of the function body: the second one is `x_Left_1`.
    """

    def __init__(self, func: F.Function) -> None:
        self.func = func
        self._taken: set[str] | None = None  # read on the first request: most walks add no variable
        self._next: dict[str, int] = {}

    @property
    def taken(self) -> set[str]:
        if self._taken is None:
            func = self.func
            self._taken = {p.name_hint for p in func.params} | {v.name_hint for v in collect_def_vars(func.body)}
        return self._taken

    def __call__(self, base: str) -> str:
        taken = self.taken
        k = self._next.get(base, 0)  # a function calling K kernels asks for `y_out` K times
        name = base if k == 0 else f"{base}_{k}"
        while name in taken:
            k += 1
            name = f"{base}_{k}"
        self._next[base] = k + 1
        taken.add(name)
        return name

"""Names of the variables and parameters the tile passes create."""

from __future__ import annotations

import re

from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir.utils import collect_def_vars

# ConvertToSSA's suffixes (x__ssa_v3, i__idx_v0, acc__iter_v1, acc__rv_v1, y__phi_v2).
_SSA_SUFFIX = re.compile(r"__(ssa|idx|iter|rv|phi)_v\d+$")


def base_name(var: E.Expr) -> str:
    """The name a user wrote for a variable: `x__ssa_v3` -> `x` (a helper's name builds on it)."""
    hint = getattr(var, "name_hint", "") or "v"
    return _SSA_SUFFIX.sub("", hint) or hint


class FreshNames:
    """Names no variable of a function has yet, for the variables a pass adds.

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

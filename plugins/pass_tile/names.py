"""Names of the variables and parameters the tile passes create."""

from __future__ import annotations

import re

from pypto_core.ir import expr as E

# ConvertToSSA's suffixes (x__ssa_v3, i__idx_v0, acc__iter_v1, acc__rv_v1, y__phi_v2).
_SSA_SUFFIX = re.compile(r"__(ssa|idx|iter|rv|phi)_v\d+$")


def base_name(var: E.Expr) -> str:
    """The name a user wrote for a variable: `x__ssa_v3` -> `x` (a helper's name builds on it)."""
    hint = getattr(var, "name_hint", "") or "v"
    return _SSA_SUFFIX.sub("", hint) or hint

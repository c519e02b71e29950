"""numpy semantics of the broadcast_reduce ops PyPTO adds (issue 14); the shared rules are in reductions.py.

`*_expand_expdif` is exp(x - v) computed in FP32 for low-precision floats; `row_expand` / `col_expand`
write v broadcast over the target's shape (the target's values are not read).
"""

from __future__ import annotations

from pypto_plugins.ops_tile.semantics.common import Evaluate
from pypto_plugins.ops_tile.semantics.reductions import expand, reduction


def evaluators() -> dict[str, Evaluate]:
    out: dict[str, Evaluate] = {}
    for family in ("tile", "tensor"):
        col_axis = 0 if family == "tile" else -2
        for kind in ("", "max", "min", "expdif"):
            suffix = f"_{kind}" if kind else ""
            out[f"{family}.row_expand{suffix}"] = expand(kind, True)
            out[f"{family}.col_expand{suffix}"] = expand(kind, False)
        out[f"{family}.row_prod"] = reduction("prod", -1)
        out[f"{family}.col_prod"] = reduction("prod", col_axis)
        out[f"{family}.row_argmin"] = reduction("argmin", -1)
        out[f"{family}.col_argmax"] = reduction("argmax", col_axis)
        out[f"{family}.col_argmin"] = reduction("argmin", col_axis)
    return out

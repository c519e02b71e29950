"""Row / column reductions and row / column broadcasts (tile.* and tensor.*).

Reductions read only the operand's valid region (what lies outside is unspecified on the device);
low-precision inputs accumulate in FP32. Result positions the valid region does not reach are poison.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from pypto_core.interp.dtypes import poisoned
from pypto_plugins.ops_tile.semantics.common import Evaluate, result_np_dtype, valid_of, wide

_REDUCE: dict[str, Callable[..., Any]] = {"sum": np.sum, "max": np.max, "min": np.min, "argmax": np.argmax}
_EXPAND: dict[str, Callable[[Any, Any], Any]] = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.true_divide,
}


def reduction(kind: str, axis: int) -> Evaluate:
    """axis 1: row_* -> [M, 1]; axis 0: col_* -> [1, N]."""
    fn = _REDUCE[kind]

    def evaluate(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
        src = args[0]
        vr, vc = valid_of(ctx, call, 0)
        out = poisoned(ctx.shape(call.type), result_np_dtype(call))
        region = wide(src[:vr, :vc])
        if vr == 0 or vc == 0:
            return out
        reduced = fn(region, axis=axis)
        if axis == 1:
            out[:vr, 0] = reduced
        else:
            out[0, :vc] = reduced
        return out

    return evaluate


def expand(kind: str) -> Evaluate:
    """row_expand_*(x, v [M, 1]) / col_expand_*(x, v [1, N]): numpy broadcasting does the rest."""
    fn = _EXPAND[kind]

    def evaluate(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
        return np.asarray(fn(wide(args[0]), wide(args[1]))).astype(result_np_dtype(call))

    return evaluate


def evaluators() -> dict[str, Evaluate]:
    out: dict[str, Evaluate] = {}
    for family in ("tile", "tensor"):
        for kind in ("sum", "max", "min"):
            out[f"{family}.row_{kind}"] = reduction(kind, 1)
            out[f"{family}.col_{kind}"] = reduction(kind, 0)
        out[f"{family}.row_argmax"] = reduction("argmax", 1)
        for kind in _EXPAND:
            out[f"{family}.row_expand_{kind}"] = expand(kind)
            out[f"{family}.col_expand_{kind}"] = expand(kind)
    return out

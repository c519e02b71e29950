"""The numpy semantics of the partial family's ops (../families/partial.py), imported when the reference machine
first runs an op, never by a process that only compiles (pypto_core/ops/semantics_module.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from pypto_core.ops.semantics_module import Semantics
from pypto_plugins.ops_tile.common.semantics import Evaluate, finish, result_np_dtype, wide

semantics = Semantics()

FUNCTIONS: dict[str, Callable[[Any, Any], Any]] = {
    "part_add": np.add, "part_max": np.maximum, "part_min": np.minimum, "part_mul": np.multiply,
}


def _valid_mask(ctx: Any, t: Any, shape: tuple[int, ...], out_shape: tuple[int, ...]) -> np.ndarray:
    """True inside an operand's valid region, broadcast to the result's shape."""
    valid = ctx.valid_shape(t)
    mask = np.zeros(shape, dtype=bool)
    mask[tuple(slice(0, v) for v in valid)] = True
    return np.broadcast_to(mask.reshape((1,) * (len(out_shape) - len(shape)) + shape), out_shape)


def partial(fn: Callable[[Any, Any], Any]) -> Evaluate:
    def evaluate(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
        a, b = np.asarray(wide(args[0])), np.asarray(wide(args[1]))
        out_shape = ctx.shape(call.type)
        va = _valid_mask(ctx, call.args[0].type, a.shape, out_shape)
        vb = _valid_mask(ctx, call.args[1].type, b.shape, out_shape)
        a_b, b_b = np.broadcast_to(a, out_shape), np.broadcast_to(b, out_shape)
        with np.errstate(all="ignore"):  # poison outside the valid regions may overflow; it is not kept
            both = fn(a_b, b_b)
        out = np.where(va & vb, both, np.where(va, a_b, np.where(vb, b_b, 0)))
        return finish(out, result_np_dtype(call))

    return evaluate


for _n, _fn in FUNCTIONS.items():
    semantics.of(f"tile.{_n}", partial(_fn))
    semantics.of(f"tensor.{_n}", partial(_fn))

"""The numpy semantics of the fused family's ops (../families/fused.py), imported when the reference machine
first runs an op, never by a process that only compiles (pypto_core/ops/semantics_module.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from pypto_core.ops.semantics_module import Semantics
from pypto_plugins.ops_tile.common.semantics import Evaluate, finish, result_np_dtype, wide

semantics = Semantics()


def ternary(fn: Callable[[Any, Any, Any], Any]) -> Evaluate:
    def evaluate(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
        return finish(fn(wide(args[0]), wide(args[1]), wide(args[2])), result_np_dtype(call), tuple(args))

    return evaluate


semantics.of("tile.addc", ternary(lambda a, b, c: a + b + c))
semantics.of("tile.subc", ternary(lambda a, b, c: a - b + c))
semantics.of("tile.addsc", ternary(lambda a, s, c: a + s + c))
semantics.of("tile.subsc", ternary(lambda a, s, c: a - s + c))


def _leaky(x: Any, slope: Any) -> Any:
    x = np.asarray(x)
    return np.where(x > 0, x, x * slope)


@semantics("tile.prelu", "tile.lrelu")
def leaky_relu(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    """x where x > 0, else slope * x (a slope tile or a scalar slope)."""
    return finish(_leaky(wide(args[0]), wide(args[1])), result_np_dtype(call))

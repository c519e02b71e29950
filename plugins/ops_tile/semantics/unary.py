"""The numpy semantics of the unary family's ops (../families/unary.py), imported when the reference machine
first runs an op, never by a process that only compiles (pypto_core/ops/semantics_module.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from pypto_core.interp.dtypes import is_float_dtype
from pypto_core.ops.semantics_module import Semantics
from pypto_plugins.ops_tile.common import names
from pypto_plugins.ops_tile.common.semantics import (
    Evaluate,
    compute_operand,
    direct_unary,
    finish,
    result_np_dtype,
)

semantics = Semantics()


def _relu(a: Any) -> Any:
    return np.maximum(a, np.zeros((), dtype=np.asarray(a).dtype))


def _rsqrt(a: Any) -> Any:
    return 1.0 / np.sqrt(a)


def _recip(a: Any) -> Any:
    arr = np.asarray(a)
    one = np.ones((), dtype=arr.dtype) if is_float_dtype(arr.dtype) else np.float32(1)
    return np.true_divide(one, arr)


FUNCTIONS: dict[str, Callable[[Any], Any]] = {
    "exp": np.exp, "neg": np.negative, "abs": np.abs, "sqrt": np.sqrt, "log": np.log, "relu": _relu,
    "recip": _recip, "rsqrt": _rsqrt, "not": np.invert, "floor": np.floor, "ceil": np.ceil,
    "sin": np.sin, "cos": np.cos, "tanh": np.tanh, "sigmoid": lambda a: 1.0 / (1.0 + np.exp(-a)),
    "square": np.square,
}


def unary(fn: Callable[[Any], Any]) -> Evaluate:
    """The operand in the result's compute type (low-precision floats in FP32, rounded once)."""

    def evaluate(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
        dt = result_np_dtype(call)
        return finish(fn(compute_operand(args[0], dt)), dt, (args[0],))

    return direct_unary(fn, evaluate)


for _n in (*names.UNARY, "recip", "rsqrt", "log"):
    semantics.of(f"tile.{_n}", unary(FUNCTIONS[_n]))
for _n in (*names.TENSOR.UNARY, "log"):
    semantics.of(f"tensor.{_n}", unary(FUNCTIONS[_n]))

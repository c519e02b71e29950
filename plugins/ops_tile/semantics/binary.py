"""The numpy semantics of the binary family's ops (../families/binary.py), imported when the reference machine
first runs an op, never by a process that only compiles (pypto_core/ops/semantics_module.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from pypto_core.interp.dtypes import is_float_dtype, is_int_dtype
from pypto_core.ops.semantics_module import Semantics
from pypto_plugins.ops_tile.common import names
from pypto_plugins.ops_tile.common.conversion import NONE, TRUNC, convert
from pypto_plugins.ops_tile.common.semantics import (
    Evaluate,
    compute_operand,
    direct_binary,
    finish,
    result_np_dtype,
)

semantics = Semantics()


# Low-precision float results are computed in FP32 and rounded once; `high_precision` changes nothing here
# (the machine computes in FP32 or wider anyway).
def divide(a: Any, b: Any) -> Any:
    """Float division (x / 0 is inf / NaN); integer division truncates toward zero and x / 0 is 0."""
    a_arr, b_arr = np.asarray(a), np.asarray(b)
    if is_float_dtype(a_arr.dtype) or is_float_dtype(b_arr.dtype):
        return np.true_divide(a, b)
    safe = np.where(b_arr == 0, 1, b_arr)
    q = np.abs(a_arr) // np.abs(safe)
    q = np.where((a_arr < 0) ^ (safe < 0), -q, q)
    return np.where(b_arr == 0, 0, q)


def remainder(a: Any, b: Any) -> Any:
    """The remainder with the divisor's sign (floored quotient, numpy / torch `remainder`, Python `%`); fmod is
    the one with the dividend's sign. An integer remainder by 0 is 0, like integer div."""
    a_arr, b_arr = np.asarray(a), np.asarray(b)
    if is_float_dtype(a_arr.dtype) or is_float_dtype(b_arr.dtype):
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.remainder(a, b)
    safe = np.where(b_arr == 0, 1, b_arr)
    return np.where(b_arr == 0, 0, np.remainder(a_arr, safe))


def fmod(a: Any, b: Any) -> Any:
    """C fmod (truncated quotient: the dividend's sign); an integer fmod by 0 is 0."""
    a_arr, b_arr = np.asarray(a), np.asarray(b)
    if is_float_dtype(a_arr.dtype) or is_float_dtype(b_arr.dtype):
        return np.fmod(a_arr, b_arr)
    safe = np.where(b_arr == 0, 1, b_arr)
    return np.where(b_arr == 0, 0, np.fmod(a_arr, safe))


# The numpy function of each op name; a tile-scalar op `adds` is `add` with a scalar rhs.
FUNCTIONS: dict[str, Callable[[Any, Any], Any]] = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": divide, "maximum": np.maximum,
    "minimum": np.minimum, "rem": remainder, "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor,
    "shl": np.left_shift, "shr": np.right_shift, "pow": np.power, "fmod": fmod,
}


def binary(fn: Callable[[Any, Any], Any]) -> Evaluate:
    """Both operands in the result's compute type; numpy broadcasting (a tensor-scalar op promotes)."""

    def evaluate(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
        dt = result_np_dtype(call)
        return finish(fn(compute_operand(args[0], dt), compute_operand(args[1], dt)), dt, (args[0], args[1]))

    return direct_binary(fn, evaluate)


def tile_scalar(fn: Callable[[Any, Any], Any]) -> Evaluate:
    """A tile-scalar op whose result has the tile's dtype: the scalar is narrowed to that dtype first, as the
    vector unit takes it; a float scalar narrowed to an integer tile truncates toward zero (C conversion,
    saturating)."""

    def evaluate(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
        dt = result_np_dtype(call)
        tile_dt = getattr(args[0], "dtype", None)
        scalar = args[1]
        if tile_dt == dt and getattr(scalar, "dtype", None) != dt:
            value = np.asarray(scalar)
            scalar = convert(value, dt, TRUNC if is_float_dtype(value.dtype) and is_int_dtype(dt) else NONE)[()]
        return finish(fn(compute_operand(args[0], dt), compute_operand(scalar, dt)), dt, (args[0], args[1]))

    # A scalar already of the tile's (= the result's) dtype needs no narrowing: the fast path of `binary`.
    return direct_binary(fn, evaluate)


for _n in (*names.BINARY, "fmod"):
    semantics.of(f"tile.{_n}", binary(FUNCTIONS[_n]))
for _n in (*names.SCALAR, "fmods"):
    semantics.of(f"tile.{_n}", tile_scalar(FUNCTIONS[_n[:-1]]))
for _n in (*names.TENSOR.BINARY, "fmod"):  # maximum / minimum: a tensor or a scalar rhs, numpy broadcasts both
    semantics.of(f"tensor.{_n}", binary(FUNCTIONS[_n]))
for _n in (*names.TENSOR.SCALAR, "fmods"):
    semantics.of(f"tensor.{_n}", binary(FUNCTIONS[_n[:-1]]))

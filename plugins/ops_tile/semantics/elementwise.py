"""Element-wise tile.* / tensor.* ops: binary (numpy broadcasting), tile-scalar, unary, compare, select.

Low-precision float results are computed in FP32 and rounded once. Integer `div` truncates toward
zero (C semantics) and a division by zero gives 0; float division by zero gives inf / NaN.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from pypto_core.interp.dtypes import is_float_dtype
from pypto_core.interp.errors import MachineError
from pypto_plugins.ops_tile.semantics.common import Evaluate, result_np_dtype, wide


def _div(a: Any, b: Any) -> Any:
    a_arr, b_arr = np.asarray(a), np.asarray(b)
    if is_float_dtype(a_arr.dtype) or is_float_dtype(b_arr.dtype):
        return np.true_divide(a, b)
    safe = np.where(b_arr == 0, 1, b_arr)
    q = np.abs(a_arr) // np.abs(safe)
    q = np.where((a_arr < 0) ^ (safe < 0), -q, q)
    return np.where(b_arr == 0, 0, q)


def _rem(a: Any, b: Any) -> Any:
    a_arr, b_arr = np.asarray(a), np.asarray(b)
    if is_float_dtype(a_arr.dtype) or is_float_dtype(b_arr.dtype):
        return np.fmod(a, b)
    safe = np.where(b_arr == 0, 1, b_arr)
    return np.where(b_arr == 0, 0, np.fmod(a_arr, safe))


def _relu(a: Any) -> Any:
    return np.maximum(a, np.zeros((), dtype=np.asarray(a).dtype))


def _rsqrt(a: Any) -> Any:
    return 1.0 / np.sqrt(a)


def _recip(a: Any) -> Any:
    arr = np.asarray(a)
    one = np.ones((), dtype=arr.dtype) if is_float_dtype(arr.dtype) else np.float32(1)
    return np.true_divide(one, arr)


BINARY_FNS: dict[str, Callable[[Any, Any], Any]] = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": _div, "maximum": np.maximum,
    "minimum": np.minimum, "rem": _rem, "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor,
    "shl": np.left_shift, "shr": np.right_shift, "pow": np.power,
}
# Tile-scalar forms: `adds` is `add` with a scalar rhs.
SCALAR_FNS: dict[str, Callable[[Any, Any], Any]] = {
    "adds": np.add, "subs": np.subtract, "muls": np.multiply, "divs": _div, "maxs": np.maximum,
    "mins": np.minimum, "rems": _rem, "ands": np.bitwise_and, "ors": np.bitwise_or, "xors": np.bitwise_xor,
    "shls": np.left_shift, "shrs": np.right_shift,
}
UNARY_FNS: dict[str, Callable[[Any], Any]] = {
    "exp": np.exp, "neg": np.negative, "abs": np.abs, "sqrt": np.sqrt, "log": np.log, "relu": _relu,
    "recip": _recip, "rsqrt": _rsqrt, "not": np.invert, "floor": np.floor, "ceil": np.ceil,
    "sin": np.sin, "cos": np.cos, "tanh": np.tanh, "sigmoid": lambda a: 1.0 / (1.0 + np.exp(-a)),
    "square": np.square,
}
# cmp_mode of tile.cmp / tile.cmps (pto-isa CmpMode order): EQ, NE, LT, GT, GE, LE.
CMP_FNS: tuple[Callable[[Any, Any], Any], ...] = (np.equal, np.not_equal, np.less, np.greater,
                                                  np.greater_equal, np.less_equal)


def _finish(value: Any, dt: np.dtype, operands: tuple[Any, ...] = ()) -> np.ndarray:
    """The result as a fresh array of dtype `dt`: an array the op just made is kept as it is."""
    if (value.__class__ is np.ndarray and value.dtype == dt and value.base is None
            and all(value is not x for x in operands)):
        return value
    return np.asarray(value).astype(dt)  # astype copies: the result is always a fresh array


def binary(fn: Callable[[Any, Any], Any]) -> Evaluate:
    def evaluate(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
        return _finish(fn(wide(args[0]), wide(args[1])), result_np_dtype(call), (args[0], args[1]))

    return evaluate


def unary(fn: Callable[[Any], Any]) -> Evaluate:
    def evaluate(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
        return _finish(fn(wide(args[0])), result_np_dtype(call), (args[0],))

    return evaluate


def _cmp_fn(mode: Any, op: str) -> Callable[[Any, Any], Any]:
    if isinstance(mode, str):
        names = ("eq", "ne", "lt", "gt", "ge", "le")
        if mode.lower() not in names:
            raise MachineError(f"{op}: unknown cmp_mode '{mode}'")
        return CMP_FNS[names.index(mode.lower())]
    if not 0 <= int(mode) < len(CMP_FNS):
        raise MachineError(f"{op}: cmp_mode {mode} is not one of 0..{len(CMP_FNS) - 1}")
    return CMP_FNS[int(mode)]


def compare(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    """tile.cmp(lhs, rhs, cmp_mode=) / tile.cmps(lhs, scalar, cmp_mode=): a 0/1 mask of the result dtype."""
    fn = _cmp_fn(kwargs.get("cmp_mode", 0), call.op.name)
    return _finish(fn(wide(args[0]), wide(args[1])), result_np_dtype(call))


def select(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    """tile.sel(mask, lhs, rhs[, tmp]): lhs where the mask is non-zero, else rhs."""
    mask = np.asarray(args[0]).astype(bool)
    return _finish(np.where(mask, wide(args[1]), wide(args[2])), result_np_dtype(call))


def select_scalar(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    """tile.sels(mask, src, tmp, scalar): src where the mask is non-zero, else the scalar."""
    mask = np.asarray(args[0]).astype(bool)
    scalar = args[3] if len(args) > 3 else kwargs.get("scalar", 0)
    return _finish(np.where(mask, wide(args[1]), wide(scalar)), result_np_dtype(call))


def evaluators() -> dict[str, Evaluate]:
    out: dict[str, Evaluate] = {}
    for family in ("tile", "tensor"):
        for name, fn in BINARY_FNS.items():
            out[f"{family}.{name}"] = binary(fn)
        for name, fn in SCALAR_FNS.items():
            out[f"{family}.{name}"] = binary(fn)
        for name, ufn in UNARY_FNS.items():
            out[f"{family}.{name}"] = unary(ufn)
        out[f"{family}.cmp"] = compare
        out[f"{family}.cmps"] = compare
        out[f"{family}.sel"] = select
        out[f"{family}.sels"] = select_scalar
    return out

"""numpy semantics of the elementwise_extra ops (issue 14; the rules are in ops/elementwise_extra.py).

Choices where OPS.md is silent (following pto-isa's instructions of the same name):
* subc = lhs - rhs + rhs2 and subsc = lhs - scalar + rhs2 (TSUBC / TSUBSC); addc / addsc add all three.
* fmod is C fmod (truncated quotient: the result has the dividend's sign; tile.rem is the one with the
  divisor's sign); an integer fmod by 0 is 0, like tile.rem here.
* part_*: per element, the op where both sources are valid, the valid source's value where only one is,
  0 where neither is (the machine then poisons what lies outside the result's valid region, src0's).
* prelu / lrelu: x where x > 0, else slope * x (0 and -0 take the slope branch; NaN stays NaN).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from pypto_core.interp.dtypes import is_float_dtype
from pypto_plugins.ops_tile.semantics.common import Evaluate, result_np_dtype, wide
from pypto_plugins.ops_tile.semantics.elementwise import _finish, binary, tile_scalar


def fmod(a: Any, b: Any) -> Any:
    a_arr, b_arr = np.asarray(a), np.asarray(b)
    if is_float_dtype(a_arr.dtype) or is_float_dtype(b_arr.dtype):
        return np.fmod(a_arr, b_arr)
    safe = np.where(b_arr == 0, 1, b_arr)
    return np.where(b_arr == 0, 0, np.fmod(a_arr, safe))


def _ternary(fn: Callable[[Any, Any, Any], Any]) -> Evaluate:
    def evaluate(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
        return _finish(fn(wide(args[0]), wide(args[1]), wide(args[2])), result_np_dtype(call), tuple(args))

    return evaluate


def _valid_mask(ctx: Any, t: Any, shape: tuple[int, ...], out_shape: tuple[int, ...]) -> np.ndarray:
    """True inside an operand's valid region, broadcast to the result's shape."""
    valid = ctx.valid_shape(t)
    mask = np.zeros(shape, dtype=bool)
    mask[tuple(slice(0, v) for v in valid)] = True
    return np.broadcast_to(mask.reshape((1,) * (len(out_shape) - len(shape)) + shape), out_shape)


def _partial(fn: Callable[[Any, Any], Any]) -> Evaluate:
    def evaluate(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
        a, b = np.asarray(wide(args[0])), np.asarray(wide(args[1]))
        out_shape = ctx.shape(call.type)
        va = _valid_mask(ctx, call.args[0].type, a.shape, out_shape)
        vb = _valid_mask(ctx, call.args[1].type, b.shape, out_shape)
        a_b, b_b = np.broadcast_to(a, out_shape), np.broadcast_to(b, out_shape)
        with np.errstate(all="ignore"):  # poison outside the valid regions may overflow; it is not kept
            both = fn(a_b, b_b)
        out = np.where(va & vb, both, np.where(va, a_b, np.where(vb, b_b, 0)))
        return _finish(out, result_np_dtype(call))

    return evaluate


def _leaky(x: Any, slope: Any) -> Any:
    x = np.asarray(x)
    return np.where(x > 0, x, x * slope)


def prelu(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    return _finish(_leaky(wide(args[0]), wide(args[1])), result_np_dtype(call))


def lrelu(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    return _finish(_leaky(wide(args[0]), wide(args[1])), result_np_dtype(call))


def expands(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    dt = result_np_dtype(call)
    return np.full(ctx.shape(call.type), np.asarray(wide(args[1])).astype(dt), dtype=dt)


_PART_FNS: dict[str, Callable[[Any, Any], Any]] = {
    "part_add": np.add, "part_max": np.maximum, "part_min": np.minimum, "part_mul": np.multiply,
}


def evaluators() -> dict[str, Callable[..., Any]]:
    out: dict[str, Callable[..., Any]] = {
        "tile.addc": _ternary(lambda a, b, c: a + b + c),
        "tile.subc": _ternary(lambda a, b, c: a - b + c),
        "tile.addsc": _ternary(lambda a, s, c: a + s + c),
        "tile.subsc": _ternary(lambda a, s, c: a - s + c),
        "tile.prelu": prelu,
        "tile.lrelu": lrelu,
    }
    for family in ("tile", "tensor"):
        out[f"{family}.fmod"] = binary(fmod)
        out[f"{family}.fmods"] = tile_scalar(fmod) if family == "tile" else binary(fmod)
        out[f"{family}.expands"] = expands
        for name, fn in _PART_FNS.items():
            out[f"{family}.{name}"] = _partial(fn)
    return out

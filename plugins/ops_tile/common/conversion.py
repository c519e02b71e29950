"""Dtype conversion with the rounding modes of tile.cast / tensor.cast (`mode`, docs/reference/ops.md):
0 none, 1 rint, 2 round, 3 floor, 4 ceil, 5 trunc, 6 odd. tile-scalar ops narrow their scalar with it too.

* float -> int: round by the mode (none = rint: ties to even; round = ties away from zero), then
  saturate to the target range; NaN gives 0.
* -> a float that may not hold the value (FP32 -> FP16 / BF16 / FP8, FP16 <-> BF16, int -> float): the two
  representable neighbours of the exact value are found and the mode picks one (rint / none: nearest, ties to even; round:
  nearest, ties away from zero; floor / ceil / trunc: directed; odd: the neighbour whose last
  mantissa bit is 1, i.e. round-to-odd).
* int -> int wraps (two's complement), as numpy; widening conversions are exact.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pypto_core.interp.dtypes import int_limits, is_float_dtype, is_int_dtype
from pypto_core.interp.errors import MachineError

NONE, RINT, ROUND, FLOOR, CEIL, TRUNC, ODD = range(7)


def _round_half_away(x: np.ndarray) -> np.ndarray:
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


_TO_INTEGRAL = {NONE: np.rint, RINT: np.rint, ROUND: _round_half_away, FLOOR: np.floor, CEIL: np.ceil,
                TRUNC: np.trunc, ODD: np.rint}


def float_to_int(x: np.ndarray, dt: np.dtype, mode: int) -> np.ndarray:
    lo, hi = int_limits(dt)
    r = _TO_INTEGRAL[mode](x.astype(np.float64))
    r = np.where(np.isnan(r), 0, np.clip(r, lo, hi))
    return r.astype(dt)


def _neighbours(x64: np.ndarray, dt: np.dtype) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(nearest-even, lower, upper) representable values of dtype `dt` around the exact values x64."""
    nearest = x64.astype(dt)
    back = nearest.astype(np.float64)
    up = np.nextafter(nearest, np.array(np.inf, dtype=dt))
    down = np.nextafter(nearest, np.array(-np.inf, dtype=dt))
    lower = np.where(back > x64, down, nearest).astype(dt)
    upper = np.where(back < x64, up, nearest).astype(dt)
    return nearest, lower, upper


def _odd_mantissa(v: np.ndarray) -> np.ndarray:
    bits = np.ascontiguousarray(v).view(np.dtype(f"u{v.dtype.itemsize}"))
    return (bits & 1).astype(bool)


def to_narrow_float(x: np.ndarray, dt: np.dtype, mode: int) -> np.ndarray:
    x64 = x.astype(np.float64)
    nearest, lower, upper = _neighbours(x64, dt)
    if mode in (NONE, RINT):
        return nearest
    exact = lower.astype(np.float64) == upper.astype(np.float64)
    if mode == FLOOR:
        out = lower
    elif mode == CEIL:
        out = upper
    elif mode == TRUNC:
        out = np.where(x64 >= 0, lower, upper)
    elif mode == ROUND:
        d_low, d_up = x64 - lower.astype(np.float64), upper.astype(np.float64) - x64
        tie = d_low == d_up
        away = np.where(x64 >= 0, upper, lower)
        out = np.where(tie, away, nearest)
    elif mode == ODD:
        out = np.where(_odd_mantissa(lower), lower, upper)
    else:
        raise MachineError(f"cast mode {mode} is not one of 0..6")
    out = np.where(exact | np.isnan(x64) | np.isinf(x64), nearest, out)
    return np.asarray(out).astype(dt)


def convert(x: Any, dt: np.dtype, mode: int) -> np.ndarray:
    src = np.asarray(x)
    if src.dtype == dt:
        return src.copy()
    if dt == np.bool_ or src.dtype == np.bool_:
        return src.astype(dt)
    if is_float_dtype(src.dtype) and is_int_dtype(dt):
        return float_to_int(src, dt, mode)
    if is_float_dtype(dt):
        # Any float target but FP64 may not hold the value: FP16 <-> BF16 narrows the mantissa or the range
        # although both are 2 bytes, so the mode picks the neighbour there too (an exact value is kept).
        return to_narrow_float(src, dt, mode) if dt != np.float64 else src.astype(dt)
    return src.astype(dt)  # int -> int wraps


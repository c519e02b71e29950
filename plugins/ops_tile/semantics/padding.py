"""The numpy semantics of the padding family's ops (../families/padding.py), imported when the reference
machine first runs an op, never by a process that only compiles (pypto_core/ops/semantics_module.py)."""

from __future__ import annotations

from typing import Any

import numpy as np

from pypto_core.interp.dtypes import is_float_dtype, is_int_dtype
from pypto_core.ir.enums import PadValue
from pypto_core.ops.semantics_module import Semantics
from pypto_plugins.ops_tile.common.semantics import as_ints, result_np_dtype

semantics = Semantics()


def pad_scalar(pad: PadValue, dt: np.dtype) -> Any:
    """zero -> 0; max / min -> +-inf for floats, the integer limits for ints (True / False for BOOL)."""
    if pad is PadValue.zero:
        return dt.type(0)
    high = pad is PadValue.max
    if is_float_dtype(dt):
        return dt.type(np.inf if high else -np.inf)
    if is_int_dtype(dt):
        info = np.iinfo(dt)
        return dt.type(info.max if high else info.min)
    return dt.type(high)


def padded(ctx: Any, call: Any, kwargs: dict, src: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """A fresh array of `shape`: src's valid region at the origin, the pad value everywhere else."""
    dt = result_np_dtype(call)
    out = np.full(shape, pad_scalar(kwargs.get("pad_value") or PadValue.zero, dt), dtype=dt)
    valid = ctx.valid_shape(call.args[0].type)
    region = tuple(slice(0, min(v, s)) for v, s in zip(valid, shape))
    out[region] = src[region]
    return out


@semantics("tile.fillpad", "tile.fillpad_inplace", "tensor.fillpad")
def fillpad(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    return padded(ctx, call, kwargs, args[0], args[0].shape)


@semantics("tile.fillpad_expand", "tensor.fillpad_expand")
def fillpad_expand(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    return padded(ctx, call, kwargs, args[0], as_ints(args[1]))

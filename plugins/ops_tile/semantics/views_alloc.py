"""numpy semantics of the views_alloc ops (issue 14); the numeric choices are in ops/views_alloc.py's docstring."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from pypto_core.interp.dtypes import is_float_dtype, is_int_dtype
from pypto_core.ir.enums import PadValue, TensorLayout
from pypto_core.ir.types import TensorType
from pypto_plugins.ops_tile.semantics.common import as_ints, result_np_dtype
from pypto_plugins.ops_tile.semantics.generators import ci, random
from pypto_plugins.ops_tile.semantics.memory import create


def alloc(ctx: Any, call: Any, args: list, kwargs: dict) -> Any:
    """tile.alloc / tensor.alloc: a Ptr stand-in; the machine plans no addresses, so every buffer is at 0."""
    return np.int64(0)


def create_l1(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    return create(ctx, call, [args[0]], {})  # uninitialised: poison


def tri(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    """Ones on and below (upper: on and above) the diagonal-th diagonal: numpy tril / triu of ones."""
    rows, cols = as_ints(args[1])
    ones = np.ones((rows, cols), dtype=result_np_dtype(call))
    k = int(args[0])
    return np.triu(ones, k) if kwargs.get("upper") else np.tril(ones, k)


def concat(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    return np.concatenate([args[0], args[1]], axis=1).astype(result_np_dtype(call), copy=False)


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


def _valid(ctx: Any, call: Any) -> tuple[int, ...]:
    t = call.args[0].type
    return ctx.valid_shape(t)


def padded(ctx: Any, call: Any, kwargs: dict, src: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """A fresh array of `shape`: src's valid region at the origin, the pad value everywhere else."""
    dt = result_np_dtype(call)
    out = np.full(shape, pad_scalar(kwargs.get("pad_value") or PadValue.zero, dt), dtype=dt)
    region = tuple(slice(0, min(v, s)) for v, s in zip(_valid(ctx, call), shape))
    out[region] = src[region]
    return out


def fillpad(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    return padded(ctx, call, kwargs, args[0], args[0].shape)


def fillpad_expand(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    return padded(ctx, call, kwargs, args[0], as_ints(args[1]))


def set_validshape(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    """tensor.set_validshape: the same tensor (the result reuses it); only its type's valid region changes."""
    return args[0]


def _layout(t: Any) -> TensorLayout:
    view = t.tensor_view if isinstance(t, TensorType) else None
    return view.layout if view is not None and view.layout else TensorLayout.ND


def view(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    """tensor.view: the source's memory order (ND row-major; DN the last two axes column-major) re-read with
    the result's shape and layout. A numpy view of the caller's array when numpy can make one."""
    src, dst = call.args[0].type, call.type
    shape = ctx.shape(dst)
    if len(call.args) < 2 or not args[1]:
        return np.swapaxes(args[0], -1, -2) if _layout(src) is not _layout(dst) else args[0]
    memory = np.swapaxes(args[0], -1, -2) if _layout(src) is TensorLayout.DN else args[0]
    if _layout(dst) is TensorLayout.DN:
        return np.swapaxes(np.reshape(memory, (*shape[:-2], shape[-1], shape[-2])), -1, -2)
    return np.reshape(memory, shape)


def evaluators() -> dict[str, Callable[..., Any]]:
    return {
        "tile.alloc": alloc, "tensor.alloc": alloc, "tensor.create_l1": create_l1,
        "tile.tri": tri, "tensor.ci": ci, "tensor.random": random,
        "tile.concat": concat, "tensor.concat": concat,
        "tile.fillpad": fillpad, "tile.fillpad_inplace": fillpad, "tile.fillpad_expand": fillpad_expand,
        "tensor.fillpad": fillpad, "tensor.fillpad_expand": fillpad_expand,
        "tensor.set_validshape": set_validshape, "tensor.view": view,
    }

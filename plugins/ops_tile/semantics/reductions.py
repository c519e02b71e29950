"""Row / column reductions and row / column broadcasts (tile.* and tensor.*), any rank >= 2.

Reductions read only the operand's valid region (what lies outside is unspecified on the device);
low-precision inputs accumulate in FP32. Result positions the valid region does not reach are poison.
A tile row_* reduces the last axis and a tile col_* the first (OPS.md "Tile[1, rest of shape]"); a tensor
reduction reduces its `axis` kwarg (row_*: -1, col_*: -2 when absent) and drops it unless keep_dim.
Arg-reductions give the first index of the extreme (INT32) on ties.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from pypto_core.interp.dtypes import poisoned
from pypto_core.ir.types import ScalarType
from pypto_plugins.ops_tile.semantics.common import Evaluate, result_np_dtype, valid_of, wide

REDUCE: dict[str, Callable[..., Any]] = {"sum": np.sum, "max": np.max, "min": np.min, "prod": np.prod,
                                         "argmax": np.argmax, "argmin": np.argmin}
EXPAND: dict[str, Callable[[Any, Any], Any]] = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.true_divide,
    "max": np.maximum, "min": np.minimum, "expdif": lambda x, v: np.exp(np.subtract(x, v)),
    "": lambda x, v: np.broadcast_to(v, np.shape(x)),
}


def _reduce_valid(fn: Callable[..., Any], src: np.ndarray, valid: tuple[int, ...], axis: int) -> np.ndarray:
    """The reduction of src's valid region along `axis`, kept as an axis of 1, in a poisoned array of
    src's shape with that axis 1 (positions the valid region does not reach stay poison)."""
    region = wide(src[tuple(slice(0, v) for v in valid)])
    shape = list(src.shape)
    shape[axis] = 1
    out_valid = list(valid)
    out_valid[axis] = 1
    if any(v == 0 for v in valid):
        return poisoned(tuple(shape), region.dtype)
    reduced = np.expand_dims(fn(region, axis=axis), axis)
    out = poisoned(tuple(shape), reduced.dtype)
    out[tuple(slice(0, v) for v in out_valid)] = reduced
    return out


def reduction(kind: str, axis: int) -> Evaluate:
    """Tile ops: axis -1 (row_*) or 0 (col_*); tensor ops: the `axis` kwarg when given, else this default."""
    fn = REDUCE[kind]

    def evaluate(ctx: Any, call: Any, args: list, kwargs: dict) -> Any:
        src = np.asarray(args[0])
        valid = tuple(valid_of(ctx, call, 0))
        ax = kwargs.get("axis")
        ax = (axis if ax is None else int(ax)) % src.ndim
        out = _reduce_valid(fn, src, valid, ax)
        dt = result_np_dtype(call)
        if kwargs.get("keep_dim", True) is False:
            out = np.squeeze(out, axis=ax)
        if isinstance(call.type, ScalarType):
            return dt.type(out.reshape(()))
        return out.astype(dt)

    return evaluate


def expand(kind: str, row: bool) -> Evaluate:
    """row_expand_*(x, v [..., M, 1]) / col_expand_*(x, v [..., 1, N]): v broadcast over x's shape.

    A row-major 32-byte carrier row_vec ([M, 32 / elem_bytes], tile.row_expand_add) uses its column 0.
    """
    fn = EXPAND[kind]

    def evaluate(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
        x, v = np.asarray(args[0]), np.asarray(args[1])
        v = v[..., :1] if row else v[..., :1, :]
        return np.array(fn(wide(x), wide(v)), copy=True).astype(result_np_dtype(call))

    return evaluate


def evaluators() -> dict[str, Evaluate]:
    out: dict[str, Evaluate] = {}
    for family in ("tile", "tensor"):
        col_axis = 0 if family == "tile" else -2
        for kind in ("sum", "max", "min"):
            out[f"{family}.row_{kind}"] = reduction(kind, -1)
            out[f"{family}.col_{kind}"] = reduction(kind, col_axis)
        out[f"{family}.row_argmax"] = reduction("argmax", -1)
        for kind in ("add", "sub", "mul", "div"):
            out[f"{family}.row_expand_{kind}"] = expand(kind, True)
            out[f"{family}.col_expand_{kind}"] = expand(kind, False)
    return out

"""The numpy semantics of the reductions family's ops (../families/reductions.py), imported when the reference
machine first runs an op, never by a process that only compiles (pypto_core/ops/semantics_module.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from pypto_core.interp.dtypes import poisoned
from pypto_core.ir.types import ScalarType
from pypto_core.ops.semantics_module import Semantics
from pypto_plugins.ops_tile.common.semantics import Evaluate, result_np_dtype, valid_of, wide
from pypto_plugins.ops_tile.families.reductions import KINDS

semantics = Semantics()


FUNCTIONS: dict[str, Callable[..., Any]] = {"sum": np.sum, "max": np.max, "min": np.min, "prod": np.prod,
                                             "argmax": np.argmax, "argmin": np.argmin}


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
    fn = FUNCTIONS[kind]

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


def _fp16_add(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a + b rounded once to FP16 (nearest even): the FP64 sum of two FP16 values is exact."""
    return (a.astype(np.float64) + b.astype(np.float64)).astype(np.float16)


def fp16_col_sum(rows: np.ndarray, tree: bool) -> np.ndarray:
    """The FP16 column sum of rows[0..M-1] (axis 0) in the hardware's order, every partial sum rounded to FP16.
    With a tmp tile, a binary tree: while cnt > 1, row[i] = row[2i] + row[2i+1] for i < cnt // 2, then an odd
    cnt adds row[cnt - 1] into row[0], and cnt = cnt // 2. Without one, sequentially from row 0."""
    if not tree:
        acc = rows[0]
        for i in range(1, rows.shape[0]):
            acc = _fp16_add(acc, rows[i])
        return acc
    cnt = rows.shape[0]
    while cnt > 1:
        half = cnt // 2
        paired = _fp16_add(rows[0:2 * half:2], rows[1:2 * half:2])
        if cnt % 2:
            paired[0] = _fp16_add(paired[0], rows[cnt - 1])
        rows, cnt = paired, half
    return rows[0]


def tile_col_sum(ctx: Any, call: Any, args: list, kwargs: dict) -> Any:
    """tile.col_sum: an FP16 tile sums in the hardware's order (fp16_col_sum); other dtypes as reduction()."""
    src = np.asarray(args[0])
    if src.dtype != np.float16:
        return _COL_SUM(ctx, call, args, kwargs)
    valid = tuple(valid_of(ctx, call, 0))
    shape = (1, *src.shape[1:])
    if any(v == 0 for v in valid):
        return poisoned(shape, np.dtype(np.float16))
    region = src[tuple(slice(0, v) for v in valid)]
    out = poisoned(shape, np.dtype(np.float16))
    out[(slice(0, 1), *(slice(0, v) for v in valid[1:]))] = fp16_col_sum(region, tree=len(args) > 1)
    return out


_COL_SUM = reduction("sum", 0)
for _kind in KINDS:
    semantics.of(f"tile.row_{_kind}", reduction(_kind, -1))
    semantics.of(f"tile.col_{_kind}", tile_col_sum if _kind == "sum" else reduction(_kind, 0))
    semantics.of(f"tensor.row_{_kind}", reduction(_kind, -1))
    semantics.of(f"tensor.col_{_kind}", reduction(_kind, -2))

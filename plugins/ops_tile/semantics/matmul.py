"""The numpy semantics of the matmul family's ops (../families/matmul.py), imported when the reference machine
first runs an op, never by a process that only compiles (pypto_core/ops/semantics_module.py)."""

from __future__ import annotations

from typing import Any

import numpy as np

from pypto_core.interp.dtypes import is_float_dtype
from pypto_core.ops.semantics_module import Semantics
from pypto_plugins.ops_tile.common.semantics import (
    Evaluate,
    full_valid,
    result_np_dtype,
    specialized_by,
    static_type_dtype,
    valid_of,
)

semantics = Semantics()


def _accumulation_dtype(dt: np.dtype) -> type:
    return np.float32 if is_float_dtype(dt) else np.int64


def product(a: np.ndarray, b: np.ndarray, k: int | None = None) -> np.ndarray:
    """a @ b over the first k of K (the last axis of a), batch dims broadcast."""
    acc = _accumulation_dtype(a.dtype)
    if k is not None and k < a.shape[-1]:
        a, b = a[..., :k], b[..., :k, :]
    return np.matmul(a.astype(acc, copy=False), b.astype(acc, copy=False))


def _tile_product(ctx: Any, call: Any, args: list, lhs: int) -> np.ndarray:
    """The product of operands lhs and lhs + 1 in the accumulation dtype (a_trans / b_trans applied)."""
    a, b = args[lhs], args[lhs + 1]
    ka, kb = valid_of(ctx, call, lhs)[-1], valid_of(ctx, call, lhs + 1)[-2]
    kw = call.kwargs
    if kw.get("a_trans"):
        a, ka = np.swapaxes(a, -1, -2), valid_of(ctx, call, lhs)[-2]
    if kw.get("b_trans"):
        b, kb = np.swapaxes(b, -1, -2), valid_of(ctx, call, lhs + 1)[-1]
    return product(a, b, min(ka, kb))


def _specialize_tile_matmul(code: Any, call: Any, kwargs: dict) -> Evaluate | None:
    """FP32 operands, FP32 result, the whole K valid: np.matmul (and the accumulator added in place).

    The same numbers as the general evaluate: an FP32 product accumulated in FP32 (BLAS sgemm)."""
    acc = call.op.name == "tile.matmul_acc"
    operands = call.args[1:3] if acc else call.args[0:2]
    if len(call.args) != (3 if acc else 2):
        return None  # matmul_acc with init_cond
    if call.kwargs.get("a_trans") or call.kwargs.get("b_trans"):
        return None  # a transposed operand: the general evaluate
    f32 = np.dtype(np.float32)
    if static_type_dtype(call.type) != f32 or any(static_type_dtype(a.type) != f32 for a in call.args):
        return None
    if not all(full_valid(code, a.type) for a in operands):
        return None  # a K extent known only at run time, or poison to leave out
    general = tile_matmul_acc if acc else tile_matmul
    matmul = np.matmul

    if acc:
        def matmul_acc_f32(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
            c, a, b = args
            if a.dtype == f32 and b.dtype == f32 and c.dtype == f32:
                p = matmul(a, b)
                p += c  # p is fresh: accumulate in place
                return p
            return general(ctx, call, args, kwargs)

        return matmul_acc_f32

    def matmul_f32(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
        a, b = args
        if a.dtype == f32 and b.dtype == f32:
            return matmul(a, b)
        return general(ctx, call, args, kwargs)

    return matmul_f32


@semantics("tile.matmul")
@specialized_by(_specialize_tile_matmul)
def tile_matmul(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    return _tile_product(ctx, call, args, 0).astype(result_np_dtype(call), copy=False)


@semantics("tile.matmul_acc")
@specialized_by(_specialize_tile_matmul)
def tile_matmul_acc(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    """acc + lhs @ rhs; with a true init_cond the accumulator starts from zero."""
    p = _tile_product(ctx, call, args, 1)
    if not (len(args) > 3 and bool(args[3])):
        p += args[0]  # p is fresh: accumulate in place
    return p.astype(result_np_dtype(call), copy=False)


@semantics("tile.matmul_bias")
def tile_matmul_bias(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    p = _tile_product(ctx, call, args, 0)
    p += args[2][:1]  # the bias row, broadcast down the rows
    return p.astype(result_np_dtype(call), copy=False)


def _gemv_result(ctx: Any, call: Any, row: np.ndarray) -> np.ndarray:
    """The gemv tile (16 rows): the product in row 0, poison below (outside the valid region)."""
    out = ctx.poisoned(ctx.shape(call.type), result_np_dtype(call))
    out[:1] = row
    return out


@semantics("tile.gemv")
def tile_gemv(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    return _gemv_result(ctx, call, _tile_product(ctx, call, args, 0))


@semantics("tile.gemv_acc")
def tile_gemv_acc(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    p = _tile_product(ctx, call, args, 1)
    p += args[0][:1]  # only row 0 of the accumulator is valid
    return _gemv_result(ctx, call, p)


@semantics("tile.gemv_bias")
def tile_gemv_bias(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    p = _tile_product(ctx, call, args, 0)
    p += args[2][:1]
    return _gemv_result(ctx, call, p)


@semantics("tile.batch_matmul")
def tile_batch_matmul(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    return _tile_product(ctx, call, args, 0).astype(result_np_dtype(call), copy=False)


@semantics("tile.batch_matmul_acc")
def tile_batch_matmul_acc(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    p = _tile_product(ctx, call, args, 1)
    p += args[0]  # acc has the product's shape (the deducer checks it)
    return p.astype(result_np_dtype(call), copy=False)


def _tensor_operands(args: list, kwargs: dict, first: int) -> tuple[np.ndarray, np.ndarray]:
    a, b = args[first], args[first + 1]
    # a_trans / b_trans swap the last two axes; `.T` would reverse a batch axis too.
    if kwargs.get("a_trans") and a.ndim >= 2:
        a = np.swapaxes(a, -1, -2)
    if kwargs.get("b_trans") and b.ndim >= 2:
        b = np.swapaxes(b, -1, -2)
    return a, b


@semantics("tensor.matmul")
def tensor_matmul(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    a, b = _tensor_operands(args, kwargs, 0)
    return product(a, b).astype(result_np_dtype(call))


@semantics("tensor.matmul_acc")
def tensor_matmul_acc(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    """acc (arg 0, ReadWrite) += a @ b, in the caller's tensor; a true init_cond (arg 3) overwrites acc."""
    a, b = _tensor_operands(args, kwargs, 1)
    acc = args[0]
    base = 0 if len(args) > 3 and bool(args[3]) else acc.astype(_accumulation_dtype(a.dtype))
    acc[...] = (base + product(a, b)).astype(acc.dtype)
    return acc

"""The numpy semantics of the generators family's ops (../families/generators.py), imported when the reference
machine first runs an op, never by a process that only compiles (pypto_core/ops/semantics_module.py)."""

from __future__ import annotations

from typing import Any

import numpy as np

from pypto_core.interp.dtypes import is_float_dtype
from pypto_core.ops.semantics_module import Semantics
from pypto_plugins.ops_tile.common.semantics import as_ints, result_np_dtype

semantics = Semantics()


@semantics("tile.ci", "tensor.ci")
def ci(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    shape = as_ints(args[1])
    step = -1 if kwargs.get("descending") else 1
    row = int(args[0]) + step * np.arange(shape[-1], dtype=np.int64)
    return np.broadcast_to(row, shape).astype(result_np_dtype(call))


_MASK = np.uint64(0xFFFFFFFF)
_M0, _M1 = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
_W0, _W1 = np.uint64(0x9E3779B9), np.uint64(0xBB67AE85)


def philox4x32(counter: list[np.ndarray], key: tuple[int, int], rounds: int) -> np.ndarray:
    c0, c1, c2, c3 = (c.astype(np.uint64) for c in counter)
    k0, k1 = np.uint64(key[0]) & _MASK, np.uint64(key[1]) & _MASK
    for _ in range(rounds):
        p0, p1 = _M0 * c0, _M1 * c2
        c0, c1, c2, c3 = ((p1 >> np.uint64(32)) ^ c1 ^ k0) & _MASK, p1 & _MASK, \
            ((p0 >> np.uint64(32)) ^ c3 ^ k1) & _MASK, p0 & _MASK
        k0, k1 = (k0 + _W0) & _MASK, (k1 + _W1) & _MASK
    return np.stack([c0, c1, c2, c3], axis=-1).astype(np.uint32)


@semantics("tile.random", "tensor.random")
def random(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    k0, k1, c0, c1, c2, c3 = (int(a) & 0xFFFFFFFF for a in args[:6])
    shape = as_ints(args[6])
    n = int(np.prod(shape))
    blocks = np.arange((n + 3) // 4, dtype=np.uint64)
    base = c0 | (c1 << 32) | (c2 << 64) | (c3 << 96)
    lo = (np.uint64(base & 0xFFFFFFFFFFFFFFFF) + blocks)  # the low 64 bits; carries beyond are not modelled
    counter = [lo & _MASK, lo >> np.uint64(32), np.full_like(lo, (base >> 64) & 0xFFFFFFFF),
               np.full_like(lo, (base >> 96) & 0xFFFFFFFF)]
    words = philox4x32(counter, (k0, k1), int(kwargs.get("rounds") or 10)).reshape(-1)[:n].reshape(shape)
    dt = result_np_dtype(call)
    if is_float_dtype(dt):
        return ((words >> np.uint32(8)).astype(np.float64) * 2.0 ** -24).astype(dt)
    return words.astype(dt)


@semantics("tile.tri")
def tri(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    """Ones on and below (upper: on and above) the diagonal-th diagonal: numpy tril / triu of ones."""
    rows, cols = as_ints(args[1])
    ones = np.ones((rows, cols), dtype=result_np_dtype(call))
    k = int(args[0])
    return np.triu(ones, k) if kwargs.get("upper") else np.tril(ones, k)

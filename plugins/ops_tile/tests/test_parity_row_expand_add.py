"""tile.row_expand_add with a packed row-major carrier: a row_vec [M, K] (K = 32 / element bytes: 8 FP32 /
INT32, 16 FP16 / INT16, 32 INT8) is one 32-byte block per row that repeats from column 0,
out[i, j] = tile[i, j] + row_vec[i, j mod K]; a [M, 1] column (col_major, M > 1) adds row_vec[i, 0]. Only the
valid region is written; tmp does not change the values (docs/reference/ops.md)."""

from __future__ import annotations

import numpy as np
import pytest

from .parity_helpers import BACKENDS, as_written, compiled

PL = {np.float32: "pl.FP32", np.float16: "pl.FP16", np.int32: "pl.INT32", np.int16: "pl.INT16", np.int8: "pl.INT8"}

PROGRAM = """
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[_M_, _N_], _DT_], v: pl.Tensor[[_M_, _K_], _DT_],
          out: pl.InOut[pl.Tensor[[_M_, _N_], _DT_]]) -> pl.Tensor[[_M_, _N_], _DT_]:
        tx: pl.Tile[[_M_, _N_], _DT_] = pl.load(x, [0, 0], [_M_, _N_], valid_shape=[_VM_, _VN_])
        tv: pl.Tile[[_M_, _K_], _DT_] = pl.load(v, [0, 0], [_M_, _K_], valid_shape=[_VM_, _K_])
        _TMP_
        out = pl.store(pl.tile.row_expand_add(tx, tv_ARGS_), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[_M_, _N_], _DT_], v: pl.Tensor[[_M_, _K_], _DT_],
             out: pl.InOut[pl.Tensor[[_M_, _N_], _DT_]]) -> pl.Tensor[[_M_, _N_], _DT_]:
        out = self.k(x, v, out)
        return out
"""


def program(m: int, n: int, k: int, dtype: type, valid: tuple[int, int] | None = None, tmp: bool = False) -> str:
    vm, vn = valid or (m, n)
    text = PROGRAM.replace("_TMP_", f"w: pl.Tile[[{m}, {n}], {PL[dtype]}] = pl.tile.create([{m}, {n}], dtype="
                                    f"{PL[dtype]}, target_memory=pl.Mem.Vec)" if tmp else "pass")
    text = text.replace("_ARGS_", ", w" if tmp else "")
    for key, value in (("_M_", m), ("_N_", n), ("_K_", k), ("_VM_", vm), ("_VN_", vn), ("_DT_", PL[dtype])):
        text = text.replace(key, str(value))
    return text


def expected(x: np.ndarray, v: np.ndarray, old: np.ndarray, valid: tuple[int, int]) -> np.ndarray:
    """PyPTO's rule: the block repeats from column 0 inside the valid region; outside it, out keeps its data."""
    n, k = x.shape[1], v.shape[1]
    full = (x.astype(np.int64 if x.dtype.kind == "i" else np.float64) + v[:, np.arange(n) % k]).astype(x.dtype)
    out = old.copy()
    out[: valid[0], : valid[1]] = full[: valid[0], : valid[1]]
    return out


def data(shape: tuple[int, int], dtype: type, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(-40, 40, shape).astype(dtype)


def test_the_sections_example() -> None:
    x, v = np.zeros((2, 16), np.float32), (10 * np.arange(16, dtype=np.float32)).reshape(2, 8)
    want = np.tile(v, (1, 2))
    assert want[0].tolist() == [0, 10, 20, 30, 40, 50, 60, 70] * 2
    as_written(program(2, 16, 8, np.float32), {"x": x, "v": v, "out": np.zeros_like(x)}, {"out": want})


@pytest.mark.parametrize(("dtype", "k"), [(np.float32, 8), (np.int32, 8), (np.float16, 16), (np.int16, 16),
                                          (np.int8, 32)])
@pytest.mark.parametrize(("m", "n", "valid"), [(4, 64, None), (8, 96, (5, 70)), (1, 32, None)])
def test_packed_carrier_on_the_machine(dtype: type, k: int, m: int, n: int, valid: tuple[int, int] | None) -> None:
    if n % k:
        n = k * (n // k + 1)
    x, v = data((m, n), dtype, 1), data((m, k), dtype, 2)
    old = np.full((m, n), -7, dtype)
    want = expected(x, v, old, valid or (m, n))
    as_written(program(m, n, k, dtype, valid, tmp=m == 4), {"x": x, "v": v, "out": old}, {"out": want})


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("dtype", "k", "m", "n", "valid"), [(np.float32, 8, 4, 64, (3, 40)),
                                                            (np.float16, 16, 2, 48, None),
                                                            (np.int8, 32, 4, 64, None)])
def test_packed_carrier_compiled(dtype: type, k: int, m: int, n: int, valid: tuple[int, int] | None,
                                 backend: str) -> None:
    x, v = data((m, n), dtype, 3), data((m, k), dtype, 4)
    old = np.full((m, n), -7, dtype)
    compiled(program(m, n, k, dtype, valid, tmp=True), {"x": x, "v": v, "out": old},
             {"out": expected(x, v, old, valid or (m, n))}, backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_column_still_adds_its_one_value_per_row(backend: str) -> None:
    x, v = data((8, 32), np.int32, 5), data((8, 1), np.int32, 6)
    old = np.zeros((8, 32), np.int32)
    compiled(program(8, 32, 1, np.int32), {"x": x, "v": v, "out": old}, {"out": x + v}, backend)

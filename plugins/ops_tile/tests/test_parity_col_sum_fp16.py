"""FP16 tile.col_sum rounds every partial sum to FP16 (nearest even) in the hardware's order
(docs/reference/ops.md): with a tmp tile a binary tree -- from cnt = M, while cnt > 1: row[i] = row[2i] +
row[2i+1] for i < cnt // 2, then for an odd cnt row[0] += row[cnt - 1], then cnt //= 2 --; without one
sequentially, acc = row[0], acc += row[i] for i = 1..M-1. Expected values: that rule, element by element in
numpy."""

from __future__ import annotations

import numpy as np
import pytest

from .parity_helpers import BACKENDS, as_written, compiled

F16 = np.float16

PROGRAM = """
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[_M_, _N_], pl.FP16], out: pl.Out[pl.Tensor[[1, _N_], pl.FP16]]) -> pl.Tensor[[1, _N_], pl.FP16]:
        t = pl.load(x, [0, 0], [_M_, _N_], valid_shape=[_VM_, _N_])
        _TMP_
        out = pl.store(pl.tile.col_sum(t_ARGS_), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[_M_, _N_], pl.FP16], out: pl.Out[pl.Tensor[[1, _N_], pl.FP16]]) -> pl.Tensor[[1, _N_], pl.FP16]:
        out = self.k(x, out)
        return out
"""


def program(m: int, n: int, tmp: bool, valid_rows: int | None = None) -> str:
    text = PROGRAM.replace("_TMP_", f"w = pl.tile.create([{m}, {n}], dtype=pl.FP16, target_memory=pl.Mem.Vec)"
                           if tmp else "pass").replace("_ARGS_", ", w" if tmp else "")
    return text.replace("_M_", str(m)).replace("_N_", str(n)).replace("_VM_", str(valid_rows or m))


def add16(a: float, b: float) -> F16:
    return F16(float(a) + float(b))  # the exact sum of two FP16 values, rounded once to FP16


def tree(column: list[F16]) -> F16:
    row = list(column)
    cnt = len(row)
    while cnt > 1:
        for i in range(cnt // 2):
            row[i] = add16(row[2 * i], row[2 * i + 1])
        if cnt % 2:
            row[0] = add16(row[0], row[cnt - 1])
        cnt //= 2
    return row[0]


def sequential(column: list[F16]) -> F16:
    acc = column[0]
    for v in column[1:]:
        acc = add16(acc, v)
    return acc


def expected(x: np.ndarray, with_tmp: bool, valid_rows: int | None = None) -> np.ndarray:
    rows = x[: valid_rows or x.shape[0]]
    fn = tree if with_tmp else sequential
    return np.array([[fn(list(rows[:, j])) for j in range(x.shape[1])]], F16)


def test_the_sections_example() -> None:
    x = np.tile(np.array([[2048], [1], [1], [1]], F16), (1, 16))
    assert expected(x, True)[0, 0] == 2050 and expected(x, False)[0, 0] == 2048
    for tmp, value in ((True, 2050), (False, 2048)):
        as_written(program(4, 16, tmp), {"x": x, "out": np.zeros((1, 16), F16)},
                   {"out": np.full((1, 16), value, F16)})


def data(m: int, n: int, seed: int) -> np.ndarray:
    """Large and small magnitudes together, so that the order of the roundings shows."""
    rng = np.random.default_rng(seed)
    x = rng.choice(np.array([2048, 1, 1, 3, 0.5, -1, 1000.25, 0.125], F16), (m, n))
    return (x * rng.choice(np.array([1, 1, -1, 4], F16), (m, n))).astype(F16)


@pytest.mark.parametrize("tmp", [True, False])
@pytest.mark.parametrize(("m", "n", "valid_rows"), [(1, 16, None), (2, 16, None), (3, 32, None), (5, 16, None),
                                                     (7, 48, None), (16, 64, None),
                                                     (16, 16, 11), (8, 32, 1)], ids=str)
def test_on_the_machine(m: int, n: int, valid_rows: int | None, tmp: bool) -> None:
    x = data(m, n, m * 100 + n)
    want = expected(x, tmp, valid_rows)
    as_written(program(m, n, tmp, valid_rows), {"x": x, "out": np.zeros((1, n), F16)}, {"out": want})


def test_the_orders_differ_on_these_inputs() -> None:
    """The data exercise the rule: rounding once, the tree and the sequential order disagree somewhere."""
    x = data(7, 48, 748)
    once = x.astype(np.float64).sum(axis=0, keepdims=True).astype(F16)
    assert (expected(x, True) != once).any() and (expected(x, False) != once).any()
    assert (expected(x, True) != expected(x, False)).any()


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("m", "n", "tmp", "valid_rows"), [(7, 48, True, None), (16, 16, False, 11),
                                                            (4, 16, True, None)])
def test_compiled(m: int, n: int, tmp: bool, valid_rows: int | None, backend: str) -> None:
    x = data(m, n, m * 100 + n)
    compiled(program(m, n, tmp, valid_rows), {"x": x, "out": np.zeros((1, n), F16)},
             {"out": expected(x, tmp, valid_rows)}, backend)

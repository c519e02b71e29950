"""One pl.dynamic symbol in several parameter types does not tie those tensors together (docs/dsl.md, Dynamic
dimensions): each carries its own runtime shape and an op's result takes its extents from its operands. A
program giving the symbol two values runs, as written and after the default pipeline on both backends."""

from __future__ import annotations

import numpy as np
import pytest

import pypto.language as pl
from pypto_core.interp import run_program, shape_from_backend
from pypto_core.interp.errors import MachineError
from pypto_core.testing import checked_pipeline, same_results

BACKENDS = ("Ascend910B", "Ascend950")

SRC = """
import pypto.language as pl

M = pl.dynamic("M")
N = pl.dynamic("N")


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[N, M], {dtype}], out: pl.Out[pl.Tensor[[M, N], {dtype}]]) -> pl.Tensor[[M, N], {dtype}]:
        t = pl.load(x, [0, 0], [{load_rows}, {load_cols}])
        out = pl.store(pl.add(t, 1.0), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[M, N], {dtype}], c: pl.Out[pl.Tensor[[M, N], {dtype}]]) -> pl.Tensor[[M, N], {dtype}]:
        at = pl.transpose(a, 0, 1)
        c = self.k(at, c)
        return c
"""

DT = {np.float32: "pl.FP32", np.float16: "pl.FP16"}


def program(m: int, n: int, dtype: type) -> object:
    """main's `a` is [m, n]; the kernel loads the transposed [n, m] whole."""
    return pl.parse(SRC.format(dtype=DT[dtype], load_rows=n, load_cols=m))


def check(outputs: dict, want: np.ndarray, label: str) -> None:
    for name in ("c", "return"):
        np.testing.assert_array_equal(outputs[name], want, err_msg=f"{label}: {name}")


CASES = [(16, 32, np.float32), (8, 64, np.float32), (32, 16, np.float16), (16, 16, np.float32)]


@pytest.mark.parametrize(("m", "n", "dtype"), CASES)
def test_the_sections_example_as_written(m: int, n: int, dtype: type) -> None:
    a = np.arange(m * n).reshape(m, n).astype(dtype)
    want = (a.T.astype(np.float32) + 1).astype(dtype)
    for backend in BACKENDS:
        got = run_program(program(m, n, dtype), {"a": a, "c": np.zeros((n, m), dtype)}, None,
                          shape_from_backend(backend))
        check(got, want, f"as written ({backend})")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("m", "n", "dtype"), CASES[:3])
def test_the_sections_example_compiled(m: int, n: int, dtype: type, backend: str) -> None:
    before = program(m, n, dtype)
    after = checked_pipeline(backend).run(before)
    same_results(before, after)
    a = np.arange(m * n).reshape(m, n).astype(dtype)
    got = run_program(after, {"a": a, "c": np.zeros((n, m), dtype)}, None, shape_from_backend(backend))
    check(got, (a.T.astype(np.float32) + 1).astype(dtype), f"after the default pipeline ({backend})")


MISMATCH = """
import pypto.language as pl

M = pl.dynamic("M")


@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[M, 8], pl.FP32], b: pl.Tensor[[M, 8], pl.FP32]) -> pl.Tensor[[M, 8], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            y = pl.add(a, b)
        return y
"""


def test_operands_that_do_not_fit_together_are_still_an_error() -> None:
    """Taking extents from the operands does not make incompatible operands compatible."""
    a, b = np.ones((4, 8), np.float32), np.ones((6, 8), np.float32)
    with pytest.raises(MachineError, match="could not be broadcast together"):
        run_program(pl.parse(MISMATCH), {"a": a, "b": b})

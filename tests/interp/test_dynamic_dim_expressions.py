"""Parameter dims written as expressions of a dynamic var: the machine solves the var from
the argument's extent, draws inputs by evaluating the expression, and names a mismatch."""

from __future__ import annotations

import numpy as np
import pytest

import pypto.language as pl
from pypto_core.interp import make_inputs, run_program
from pypto_core.interp.dims import eval_dim, solve_dim
from pypto_core.interp.errors import MachineError
from pypto_core.ir import expr as E

M = pl.dynamic("M")


def build(rows):
    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, x: pl.Tensor[[rows, 64], pl.FP32], n: pl.Out[pl.Tensor[[1, 1], pl.INT32]],
                 out: pl.Out[pl.Tensor[[rows, 64], pl.FP32]]) -> pl.Tensor[[rows, 64], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                y = pl.mul(x, 2.0)
                out = pl.assemble(out, y, [0, 0])
            pl.tensor.write(n, [0, 0], pl.cast(M, pl.INT32))
            return out
    return P


@pytest.mark.parametrize(("rows", "extent", "m"), [(M * 2, 32, 16), (M + 8, 24, 16), (2 * M - 4, 28, 16),
                                                   (M, 48, 48)])
def test_the_var_is_solved_from_the_extent(rows, extent, m):
    x = np.random.default_rng(0).standard_normal((extent, 64)).astype(np.float32)
    got = run_program(build(rows), {"x": x, "n": np.zeros((1, 1), np.int32),
                                    "out": np.zeros((extent, 64), np.float32)})
    np.testing.assert_array_equal(got["out"], x * 2)
    assert got["n"][0, 0] == m


def test_an_extent_the_expression_cannot_take_is_named():
    with pytest.raises(MachineError, match=r"extent 33 of axis 0 is no value of its dim"):
        run_program(build(M * 2), {"x": np.zeros((33, 64), np.float32), "n": np.zeros((1, 1), np.int32),
                                   "out": np.zeros((33, 64), np.float32)})


def test_inputs_are_drawn_by_evaluating_the_dim():
    func = build(M * 2 + 1).get_function("main")
    assert make_inputs(func, dims={"M": 5})["x"].shape == (11, 64)
    assert make_inputs(func)["x"].shape == (257, 64)  # M defaults to 128


def test_solver_forms():
    var = build(M).get_function("main").params[0].type.shape[0]
    assert solve_dim(E.Mul(E.ConstInt(4, pl.INDEX), var, pl.INDEX), 64) == (var, 16)
    assert solve_dim(E.Sub(E.ConstInt(100, pl.INDEX), var, pl.INDEX), 64) == (var, 36)
    assert solve_dim(E.Mul(var, E.ConstInt(3, pl.INDEX), pl.INDEX), 64) is None  # not a multiple
    assert solve_dim(E.FloorDiv(var, E.ConstInt(2, pl.INDEX), pl.INDEX), 8) is None  # not invertible
    assert eval_dim(E.FloorDiv(var, E.ConstInt(2, pl.INDEX), pl.INDEX), {"M": 9}) == 4

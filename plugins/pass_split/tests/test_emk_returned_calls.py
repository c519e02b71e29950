"""ExpandMixedKernel: a `return` (or yield) of an op call, `return pl.store(d, [0, 0], out)`, has the call
computed into a temporary first, as PyPTO's FlattenCallExpr does before any split (docs/passes/expand_mixed_kernel.md,
placement): the call then runs on its own core (a cube store on the AIC) and each side's return reads the
temporary, which on the AIV stands for the tensor the store wrote. Results are compared with numpy formulas on
both backends."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from pypto import ir
from pypto_core.interp import run_program
from pypto_core.testing import checked_pipeline

from .emk_helpers import BACKENDS, calls_of, emk, on_backend
from .helpers import function, parse

BF16 = ml_dtypes.bfloat16
ORCH = '''
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 32], pl.BF16], b: pl.Tensor[[32, 16], pl.BF16], e: pl.Tensor[[16, 16], pl.BF16], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        r = self.k(a, b, e, out)
        return r
'''

# A cube store returned directly after a vector cast between two matmuls (PyPTO's §11 shape, in tile form).
CUBE_STORE_RETURNED = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 32], pl.BF16], b: pl.Tensor[[32, 16], pl.BF16], e: pl.Tensor[[16, 16], pl.BF16], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        ta_m = pl.load(a, [0, 0], [16, 32], target_memory=pl.Mem.Mat)
        tb_m = pl.load(b, [0, 0], [32, 16], target_memory=pl.Mem.Mat)
        ta = pl.move(ta_m, target_memory=pl.Mem.Left)
        tb = pl.move(tb_m, target_memory=pl.Mem.Right)
        c = pl.tile.matmul(ta, tb)
        c_v = pl.move(c, target_memory=pl.Mem.Vec)
        cb = pl.tile.cast(c_v, target_type=pl.BF16, mode="rint")
        cb_l = pl.move(cb, target_memory=pl.Mem.Left)
        te_m = pl.load(e, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        te = pl.move(te_m, target_memory=pl.Mem.Right)
        d = pl.tile.matmul(cb_l, te)
        return pl.store(d, [0, 0], out)
''' + ORCH

# The same, the returned store of a vector value: the call stays on the AIV, the AIC drops it.
VECTOR_STORE_RETURNED = CUBE_STORE_RETURNED.replace(
    "        d = pl.tile.matmul(cb_l, te)\n        return pl.store(d, [0, 0], out)\n",
    "        d = pl.tile.matmul(cb_l, te)\n        d_v = pl.move(d, target_memory=pl.Mem.Vec)\n"
    "        return pl.store(pl.tile.exp(d_v), [0, 0], out)\n")


def inputs(seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {"a": (rng.standard_normal((16, 32)) / 4).astype(BF16), "b": (rng.standard_normal((32, 16)) / 4).astype(BF16),
            "e": (rng.standard_normal((16, 16)) / 4).astype(BF16), "out": np.zeros((16, 16), np.float32)}


def bf16_product(x: dict[str, np.ndarray]) -> np.ndarray:
    """bf16(a @ b) @ e with FP32 accumulation: the cast rounds to nearest even."""
    f = np.float32
    return (x["a"].astype(f) @ x["b"].astype(f)).astype(BF16).astype(f) @ x["e"].astype(f)


@pytest.mark.parametrize("backend_name", BACKENDS)
def test_a_returned_cube_store_runs_on_the_cube_and_the_vector_side_returns_what_it_wrote(backend_name):
    after = emk(CUBE_STORE_RETURNED, backend_name)
    aic, aiv = function(after, "k_aic"), function(after, "k_aiv")
    assert len(calls_of(aic, "tile.store")) == 1 and not calls_of(aiv, "tile.store")
    returned = ir.flatten_to_stmts(aiv.body)[-1]
    assert isinstance(returned, ir.ReturnStmt) and [v.name_hint for v in returned.value] == ["out"]
    x = inputs(1)
    got = run_program(after, x, "main")["out"]
    np.testing.assert_allclose(got, bf16_product(x), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("backend_name", BACKENDS)
def test_a_returned_vector_store_of_a_nested_call_stays_on_the_vector_side(backend_name):
    after = emk(VECTOR_STORE_RETURNED, backend_name)
    aic, aiv = function(after, "k_aic"), function(after, "k_aiv")
    assert not calls_of(aic, "tile.store") and not calls_of(aic, "tile.exp")
    assert len(calls_of(aiv, "tile.store")) == 1 and len(calls_of(aiv, "tile.exp")) == 1
    returned = ir.flatten_to_stmts(aiv.body)[-1]
    assert isinstance(returned, ir.ReturnStmt) and [v.name_hint for v in returned.value] == ["t_tmp"]
    x = inputs(2)
    got = run_program(after, x, "main")["out"]
    np.testing.assert_allclose(got, np.exp(bf16_product(x)), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("backend_name", BACKENDS)
def test_a_returned_cube_store_inside_an_if_branch(backend_name):
    src = CUBE_STORE_RETURNED.replace(
        "e: pl.Tensor[[16, 16], pl.BF16], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:\n"
        "        ta",
        "e: pl.Tensor[[16, 16], pl.BF16], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:\n"
        "        n: pl.Scalar[pl.INDEX] = 1\n        ta").replace(
        "        return pl.store(d, [0, 0], out)\n",
        "        if n == 1:\n            return pl.store(d, [0, 0], out)\n        else:\n"
        "            return pl.store(pl.tile.matmul(cb_l, te), [0, 0], out)\n")
    after = emk(src, backend_name)
    assert len(calls_of(function(after, "k_aic"), "tile.store")) == 2
    assert not calls_of(function(after, "k_aiv"), "tile.store")
    x = inputs(3)
    np.testing.assert_allclose(run_program(after, x, "main")["out"], bf16_product(x), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("backend_name", BACKENDS)
def test_the_default_pipeline_compiles_a_returned_store_after_two_matmuls(backend_name):
    """The program as a user writes it: FlattenCallExpr hoists the call, the cast makes the kernel mixed."""
    src = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 32], pl.BF16], b: pl.Tensor[[32, 16], pl.BF16], e: pl.Tensor[[16, 16], pl.BF16], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        ta = pl.load(a, [0, 0], [16, 32], target_memory=pl.Mem.Mat)
        tb = pl.load(b, [0, 0], [32, 16], target_memory=pl.Mem.Mat)
        te = pl.load(e, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        cb = pl.cast(pl.matmul(ta, tb), pl.BF16, mode="rint")
        d = pl.matmul(cb, te)
        return pl.store(d, [0, 0], out)
''' + ORCH
    before = parse(src)
    with on_backend(backend_name):
        after = checked_pipeline(backend_name).run(before)
    x = inputs(4)
    for program in (before, after):
        np.testing.assert_allclose(run_program(program, x, "main")["out"], bf16_product(x), rtol=1e-5, atol=1e-5)

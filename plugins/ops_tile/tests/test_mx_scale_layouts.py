"""MX block-scale layouts (docs/dsl.md, tensors: MX scale layouts): `pl.MX_A_ZZ` / `pl.MX_B_NN` scale tensors
keep their bytes in 16 x 2 blocks; a load reads them through those positions, so `pl.matmul_mx` computes
c[m, n] = sum_k a[m, k] * 2^(sa[m, k // 32] - 127) * b[k, n] * 2^(sb[k // 32, n] - 127) in FP32.

The expected bytes are laid out by explicit loops over PyPTO's position formulas and the products by numpy,
independently of the machine's code."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import pypto.language as pl
from pypto import ir
from pypto_core.interp import MachineError, run_program
from pypto_core.testing import checked_pipeline
from pypto_plugins.ops_tile.common.mx_layout import mx_positions

E8M0, E4M3 = ml_dtypes.float8_e8m0fnu, ml_dtypes.float8_e4m3fn


def program(m: int, k: int, n: int, sa_layout: str = "pl.MX_A_ZZ", sb_layout: str = "pl.MX_B_NN") -> str:
    g = k // 32
    return f'''
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[{m}, {k}], pl.FP8E4M3FN], sa: pl.Tensor[[{m}, {g}], pl.FP8E8M0, {sa_layout}],
          b: pl.Tensor[[{k}, {n}], pl.FP8E4M3FN], sb: pl.Tensor[[{g}, {n}], pl.FP8E8M0, {sb_layout}],
          out: pl.Out[pl.Tensor[[{m}, {n}], pl.FP32]]) -> pl.Tensor[[{m}, {n}], pl.FP32]:
        ta = pl.load(a, [0, 0], [{m}, {k}], target_memory=pl.Mem.Mat)
        tsa = pl.load(sa, [0, 0], [{m}, {g}], target_memory=pl.Mem.Mat)
        tb = pl.load(b, [0, 0], [{k}, {n}], target_memory=pl.Mem.Mat)
        tsb = pl.load(sb, [0, 0], [{g}, {n}], target_memory=pl.Mem.Mat)
        c = pl.matmul_mx(ta, tsa, tb, tsb)
        out = pl.store(c, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[{m}, {k}], pl.FP8E4M3FN], sa: pl.Tensor[[{m}, {g}], pl.FP8E8M0, {sa_layout}],
             b: pl.Tensor[[{k}, {n}], pl.FP8E4M3FN], sb: pl.Tensor[[{g}, {n}], pl.FP8E8M0, {sb_layout}],
             out: pl.Out[pl.Tensor[[{m}, {n}], pl.FP32]]) -> pl.Tensor[[{m}, {n}], pl.FP32]:
        out = self.k(a, sa, b, sb, out)
        return out
'''


def zz_bytes(scale: np.ndarray) -> np.ndarray:
    """MX_A_ZZ: scale[m, g] at ((m // 16) * (G / 2) + g // 2) * 32 + (m % 16) * 2 + g % 2."""
    rows, groups = scale.shape
    flat = np.zeros(scale.size, scale.dtype)
    for m in range(rows):
        for g in range(groups):
            flat[((m // 16) * (groups // 2) + g // 2) * 32 + (m % 16) * 2 + g % 2] = scale[m, g]
    return flat.reshape(scale.shape)


def nn_bytes(scale: np.ndarray) -> np.ndarray:
    """MX_B_NN: scale[g, n] at ((n // 16) * (G / 2) + g // 2) * 32 + (n % 16) * 2 + g % 2."""
    groups, cols = scale.shape
    flat = np.zeros(scale.size, scale.dtype)
    for g in range(groups):
        for n in range(cols):
            flat[((n // 16) * (groups // 2) + g // 2) * 32 + (n % 16) * 2 + g % 2] = scale[g, n]
    return flat.reshape(scale.shape)


def case(m: int, k: int, n: int, seed: int) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Inputs (scales in their MX byte order) and c = (a * 2^(sa-127)) @ (b * 2^(sb-127))."""
    rng = np.random.default_rng(seed)
    g = k // 32
    a = rng.standard_normal((m, k)).astype(E4M3)
    b = rng.standard_normal((k, n)).astype(E4M3)
    ea = rng.integers(125, 130, (m, g))  # the biased exponents 125..129
    eb = rng.integers(125, 130, (g, n))
    sa, sb = (2.0 ** (ea - 127)).astype(E8M0), (2.0 ** (eb - 127)).astype(E8M0)
    want = np.zeros((m, n))
    for kk in range(k):  # the sum over k, as PyPTO's rule says it
        want += np.outer(a[:, kk].astype(np.float64) * 2.0 ** (ea[:, kk // 32] - 127),
                         b[kk].astype(np.float64) * 2.0 ** (eb[kk // 32] - 127))
    inputs = {"a": a, "sa": zz_bytes(sa), "b": b, "sb": nn_bytes(sb), "out": np.zeros((m, n), np.float32)}
    return inputs, want


def test_the_layout_names_are_the_tensor_layouts():
    assert pl.MX_A_ZZ is pl.TensorLayout.MX_A_ZZ and pl.MX_B_NN is pl.TensorLayout.MX_B_NN
    kernel = pl.parse(program(16, 128, 32)).get_function("k")
    layouts = [p.type.tensor_view.layout if p.type.tensor_view else None for p in kernel.params]
    assert layouts == [None, pl.MX_A_ZZ, None, pl.MX_B_NN, None]
    printed = pl.parse(ir.python_print(pl.parse(program(16, 128, 32))))
    ir.assert_structural_equal(printed, pl.parse(program(16, 128, 32)))


def test_byte_positions_of_the_examples():
    """Flat byte 1 of sa holds (m 0, g 1), byte 2 (m 1, g 0), byte 32 (m 0, g 2); of sb byte 1 holds
    (g 1, n 0), byte 2 (g 0, n 1), byte 64 (g 0, n 16)."""
    za = mx_positions(pl.MX_A_ZZ, (16, 4))
    assert (za[0, 1], za[1, 0], za[0, 2]) == (1, 2, 32)
    nb = mx_positions(pl.MX_B_NN, (4, 32))
    assert (nb[1, 0], nb[0, 1], nb[0, 16]) == (1, 2, 64)
    for layout, shape in ((pl.MX_A_ZZ, (48, 6)), (pl.MX_B_NN, (8, 64))):
        assert sorted(mx_positions(layout, shape).reshape(-1)) == list(range(shape[0] * shape[1]))


@pytest.mark.parametrize(("m", "k", "n", "seed"), [(16, 128, 32, 0), (32, 256, 64, 1), (48, 64, 32, 2)])
def test_matmul_mx_reads_the_scales_in_their_block_order(m, k, n, seed):
    inputs, want = case(m, k, n, seed)
    got = run_program(pl.parse(program(m, k, n)), inputs, "main")["out"]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)  # an FP32 sum against a float64 one


def test_a_layout_ignoring_reading_would_differ():
    """The test would catch a machine that reads the scales row-major (what the example's bytes rule out)."""
    inputs, want = case(16, 128, 32, 0)
    got = run_program(pl.parse(program(16, 128, 32, "pl.ND", "pl.ND")), inputs, "main")["out"]
    assert np.abs(got - want).max() > 1.0


def test_the_default_pipeline_keeps_the_result():
    inputs, want = case(32, 128, 32, 3)
    after = checked_pipeline("Ascend950").run(pl.parse(program(32, 128, 32)))
    np.testing.assert_allclose(run_program(after, inputs, "main")["out"], want, rtol=1e-5, atol=1e-4)


def test_the_910b_pipeline_refuses_mx_as_before():
    """The layouts change nothing about where MX runs: only on a backend with the MX capability."""
    with pytest.raises(ValueError, match="only supported on the Ascend950"):
        checked_pipeline("Ascend910B").run(pl.parse(program(32, 128, 32)))


def test_a_store_into_an_mx_tensor_writes_its_block_order():
    src = '''
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, s: pl.Tensor[[32, 4], pl.FP8E8M0, pl.MX_A_ZZ], zz: pl.Out[pl.Tensor[[32, 4], pl.FP8E8M0, pl.MX_A_ZZ]],
             nd: pl.Out[pl.Tensor[[32, 4], pl.FP8E8M0]]):
        t = pl.load(s, [16, 0], [16, 4], target_memory=pl.Mem.Mat)
        zz = pl.store(t, [16, 0], zz)
        nd = pl.store(t, [16, 0], nd)
'''
    logical = (2.0 ** np.random.default_rng(5).integers(-3, 4, (32, 4))).astype(E8M0)
    one = np.float32(1).astype(E8M0)
    out = run_program(pl.parse(src), {"s": zz_bytes(logical), "zz": zz_bytes(np.full((32, 4), one)),
                                      "nd": np.full((32, 4), one)}, "main")
    expected_logical = np.full((32, 4), one)
    expected_logical[16:] = logical[16:]
    np.testing.assert_array_equal(out["zz"].astype(np.float32), zz_bytes(expected_logical).astype(np.float32))
    np.testing.assert_array_equal(out["nd"].astype(np.float32), expected_logical.astype(np.float32))


@pytest.mark.parametrize(("shape", "layout"), [((8, 4), "pl.MX_A_ZZ"), ((16, 3), "pl.MX_A_ZZ"),
                                               ((3, 32), "pl.MX_B_NN"), ((4, 8), "pl.MX_B_NN")])
def test_a_scale_tensor_not_in_whole_blocks_is_a_machine_error(shape, layout):
    rows, cols = shape
    src = f'''
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, s: pl.Tensor[[{rows}, {cols}], pl.FP8E8M0, {layout}], o: pl.Out[pl.Tensor[[{rows}, {cols}], pl.FP8E8M0]]):
        t = pl.load(s, [0, 0], [{rows}, {cols}], target_memory=pl.Mem.Mat)
        o = pl.store(t, [0, 0], o)
'''
    with pytest.raises(MachineError, match="whole 16 x 2 blocks"):
        run_program(pl.parse(src), {"s": np.ones(shape, E8M0), "o": np.ones(shape, E8M0)}, "main")

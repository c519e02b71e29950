"""system_matmul family on the reference machine: each op's result against an independent numpy formula."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import pypto.language as pl
from pypto_core.interp import run_program

RNG = np.random.default_rng(3)

QUERIES = """
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, out: pl.Out[pl.Tensor[[1, 8], pl.INT32]]) -> pl.Tensor[[1, 8], pl.INT32]:
        t = pl.tile.full([1, 8], dtype=pl.INT32, value=0)
        t1 = pl.tile.write(t, [0, 0], pl.cast(pl.tile.get_block_idx(), pl.INT32))
        t2 = pl.tile.write(t1, [0, 1], pl.cast(pl.tile.get_block_num(), pl.INT32))
        t3 = pl.tile.write(t2, [0, 2], pl.cast(pl.get_block_idx(), pl.INT32))
        t4 = pl.tile.write(t3, [0, 3], pl.cast(pl.get_block_num(), pl.INT32))
        t5 = pl.tile.write(t4, [0, 4], pl.cast(pl.get_subblock_idx(), pl.INT32))
        t6 = pl.tile.write(t5, [0, 5], pl.system.available_aiv_count())
        t7 = pl.tile.write(t6, [0, 6], pl.system.available_cluster_count())
        pl.system.bar_all()
        pl.system.bar_m()
        pl.system.bar_v()
        pl.system.fence()
        pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
        ok = pl.system.task_is_valid(pl.system.task_dummy())
        bad = pl.system.task_is_valid(pl.system.task_invalid())
        t8 = pl.tile.write(t7, [0, 7], pl.cast(pl.cast(ok, pl.INT32) * 10 + pl.cast(bad, pl.INT32), pl.INT32))
        out = pl.store(t8, [0, 0], out)
        return out
"""


def test_queries_barriers_and_task_ids():
    out = run_program(pl.parse(QUERIES), {"out": np.zeros((1, 8), np.int32)})["out"]
    # block 0 of 1; lane 0 outside a split; 2 AIV lanes in the single cluster; dummy valid, invalid not.
    np.testing.assert_array_equal(out, [[0, 1, 0, 1, 0, 2, 1, 10]])


MATMUL = """
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, a: pl.Tensor[{A}, pl.FP32], b: pl.Tensor[{B}, pl.FP32],
             out: pl.Out[pl.Tensor[[16, 32], pl.{D}]]) -> pl.Tensor[[16, 32], pl.{D}]:
        al = pl.move(pl.load(a, [0, 0], {A}, target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
        br = pl.move(pl.load(b, [0, 0], {B}, target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        c = pl.matmul(al, br, out_dtype=pl.{D}, a_trans={TA}, b_trans={TB})
        acc = pl.move(pl.tile.full([16, 32], dtype=pl.FP32, value=1.0), target_memory=pl.Mem.Acc)
        d = pl.matmul_acc(acc, al, br, a_trans={TA}, b_trans={TB})
        out = pl.store(c, [0, 0], out)
        return out
"""


@pytest.mark.parametrize("ta,tb,dtype", [(False, True, "FP32"), (True, False, "FP16"), (True, True, "BF16")])
def test_matmul_transposes_and_converts(ta, tb, dtype):
    a_shape, b_shape = ([64, 16] if ta else [16, 64]), ([32, 64] if tb else [64, 32])
    text = MATMUL.format(A=a_shape, B=b_shape, D=dtype, TA=ta, TB=tb)
    a, b = RNG.standard_normal(a_shape).astype(np.float32), RNG.standard_normal(b_shape).astype(np.float32)
    np_out = {"FP32": np.float32, "FP16": np.float16, "BF16": ml_dtypes.bfloat16}[dtype]
    got = run_program(pl.parse(text), {"a": a, "b": b, "out": np.zeros((16, 32), np_out)})["out"]
    want = (a.astype(np.float64).T if ta else a) @ (b.astype(np.float64).T if tb else b)
    assert got.dtype == np_out
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=2e-2, atol=2e-2)


MX = """
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, a: pl.Tensor[[16, 64], pl.FP8E4M3FN], sa: pl.Tensor[[16, 2], pl.FP8E8M0],
             b: pl.Tensor[[64, 32], pl.FP8E4M3FN], sb: pl.Tensor[[2, 32], pl.FP8E8M0], bias: pl.Tensor[[1, 32], pl.FP32],
             o1: pl.Out[pl.Tensor[[16, 32], pl.FP32]], o2: pl.Out[pl.Tensor[[16, 32], pl.FP32]],
             o3: pl.Out[pl.Tensor[[16, 32], pl.FP32]]):
        al = pl.move(pl.load(a, [0, 0], [16, 64], valid_shape=[16, {VK}], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
        br = pl.move(pl.load(b, [0, 0], [64, 32], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        sal = pl.move(pl.load(sa, [0, 0], [16, 2], target_memory=pl.Mem.Mat), target_memory=pl.Mem.LeftScale)
        sbr = pl.move(pl.load(sb, [0, 0], [2, 32], target_memory=pl.Mem.Mat), target_memory=pl.Mem.RightScale)
        bb = pl.move(pl.load(bias, [0, 0], [1, 32], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Bias)
        sal2 = pl.tile.tget_scale_addr(sal, al)
        c = pl.matmul_mx(al, sal2, br, sbr)
        d = pl.matmul_mx_acc(c, al, sal, br, sbr)
        e = pl.matmul_mx_bias(al, sal, br, sbr, bb)
        o1 = pl.store(c, [0, 0], o1)
        o2 = pl.store(d, [0, 0], o2)
        o3 = pl.store(e, [0, 0], o3)
"""


@pytest.mark.parametrize("valid_k", [64, 40])
def test_mx_matmuls(valid_k):
    a = RNG.standard_normal((16, 64)).astype(ml_dtypes.float8_e4m3fn)
    b = RNG.standard_normal((64, 32)).astype(ml_dtypes.float8_e4m3fn)
    sa = (2.0 ** RNG.integers(-2, 3, (16, 2))).astype(ml_dtypes.float8_e8m0fnu)
    sb = (2.0 ** RNG.integers(-2, 3, (2, 32))).astype(ml_dtypes.float8_e8m0fnu)
    bias = RNG.standard_normal((1, 32)).astype(np.float32)
    zeros = np.zeros((16, 32), np.float32)
    out = run_program(pl.parse(MX.format(VK=valid_k)), {"a": a, "sa": sa, "b": b, "sb": sb, "bias": bias,
                                                        "o1": zeros.copy(), "o2": zeros.copy(), "o3": zeros.copy()})
    # Only the valid K is summed: a's columns past valid_k are poison on the machine and never read.
    ea = a.astype(np.float64)[:, :valid_k] * np.repeat(sa.astype(np.float64), 32, axis=1)[:, :valid_k]
    eb = b.astype(np.float64)[:valid_k] * np.repeat(sb.astype(np.float64), 32, axis=0)[:valid_k]
    p = ea @ eb
    np.testing.assert_allclose(out["o1"], p, rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(out["o2"], 2 * p, rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(out["o3"], p + bias, rtol=1e-5, atol=1e-4)

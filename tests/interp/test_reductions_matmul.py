"""Reductions over the valid region, and cube matmul (Left x Right -> Acc) with FP32 accumulation."""

import numpy as np
import pytest

import pypto.language as pl
from pypto_core.interp import make_inputs, run_program

REDUCE = """
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main(a: pl.Tensor[[16, 32], pl.FP32], rows: pl.Out[pl.Tensor[[16, 1], pl.FP32]], cols: pl.Out[pl.Tensor[[1, 32], pl.FP32]]):
        x = pl.load(a, [0, 0], [16, 32], valid_shape=[{VR}, 32])
        tmp = pl.tile.create([16, 32], dtype=pl.FP32)
        r = pl.{ROW}(x, tmp)
        c = pl.{COL}(x)
        rows = pl.store(r, [0, 0], rows)
        cols = pl.store(c, [0, 0], cols)
"""


@pytest.mark.parametrize("kind,fn", [("sum", np.sum), ("max", np.max), ("min", np.min)])
@pytest.mark.parametrize("valid_rows", [16, 11])
def test_row_and_col_reductions_read_only_the_valid_region(kind, fn, valid_rows):
    program = pl.parse(REDUCE.format(VR=valid_rows, ROW=f"row_{kind}", COL=f"col_{kind}"))
    inputs = make_inputs(program.get_function("main"), seed=5)
    out = run_program(program, inputs)
    a = inputs["a"][:valid_rows].astype(np.float64)
    np.testing.assert_allclose(out["rows"][:valid_rows, 0], fn(a, axis=1), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out["cols"][0], fn(a, axis=0), rtol=1e-5, atol=1e-6)  # no NaN from padding rows
    assert np.isnan(out["rows"][valid_rows:]).all()  # rows past the valid region are never stored


MATMUL = """
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main(a: pl.Tensor[[64, 256], pl.{D}], b: pl.Tensor[[256, 32], pl.{D}], out: pl.Out[pl.Tensor[[64, 32], pl.FP32]]) -> pl.Tensor[[64, 32], pl.FP32]:
        am = pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
        bm = pl.load(b, [0, 0], [64, 32], target_memory=pl.Mem.Mat)
        acc0 = pl.matmul(pl.move(am, target_memory=pl.Mem.Left), pl.move(bm, target_memory=pl.Mem.Right))
        for k, (acc,) in pl.range(1, 4, init_values=(acc0,)):
            ak = pl.load(a, [0, k * 64], [64, 64], target_memory=pl.Mem.Mat)
            bk = pl.load(b, [k * 64, 0], [64, 32], target_memory=pl.Mem.Mat)
            nxt = pl.matmul_acc(acc, pl.move(ak, target_memory=pl.Mem.Left), pl.move(bk, target_memory=pl.Mem.Right))
            res = pl.yield_(nxt)
        out = pl.store(res, [0, 0], out)
        return out
"""


@pytest.mark.parametrize("dtype", ["FP32", "FP16", "BF16"])
def test_matmul_left_right_acc_accumulates_in_fp32(dtype):
    program = pl.parse(MATMUL.format(D=dtype))
    inputs = make_inputs(program.get_function("main"), seed=13)
    got = run_program(program, inputs)["out"]
    assert got.dtype == np.float32  # the Acc dtype of float inputs
    want = inputs["a"].astype(np.float64) @ inputs["b"].astype(np.float64)
    # Products of FP16 / BF16 values are exact in FP32; only the FP32 sum of 256 terms rounds.
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)


def test_fp16_matmul_is_not_accumulated_in_fp16():
    # 2048 products of 1.0 * 1.0: an FP16 accumulator stops at 2048 exactly but loses every odd
    # increment past it; FP32 accumulation of 4096 terms is exact.
    text = MATMUL.replace("[64, 256]", "[64, 4096]").replace("[256, 32]", "[4096, 32]") \
        .replace("pl.range(1, 4,", "pl.range(1, 64,")
    program = pl.parse(text.format(D="FP16"))
    ones = {"a": np.ones((64, 4096), np.float16), "b": np.ones((4096, 32), np.float16),
            "out": np.zeros((64, 32), np.float32)}
    np.testing.assert_array_equal(run_program(program, ones)["out"], np.full((64, 32), 4096.0, np.float32))


def test_int8_matmul_accumulates_in_int32():
    text = MATMUL.replace("pl.Tensor[[64, 32], pl.FP32]", "pl.Tensor[[64, 32], pl.INT32]")
    program = pl.parse(text.format(D="INT8"))
    inputs = make_inputs(program.get_function("main"), seed=2)
    got = run_program(program, inputs)["out"]
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, inputs["a"].astype(np.int64) @ inputs["b"].astype(np.int64))

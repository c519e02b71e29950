"""On the reference machine a view of an Acc tile aliases its parent, as on the device.

`tile.matmul_acc` into a `tile.slice` of a bigger Acc tile writes the parent's rows (EvalContext.bind_alias,
exprs.write_through); a move out of Acc is a copy taken when it runs; Vec views stay values.
"""

from __future__ import annotations

import numpy as np
import pytest

import pypto.language as pl
from pypto_core.interp import run_program, shape_from_backend

from .test_views_alloc_machine import compiled

SHAPE = shape_from_backend("Ascend910B")


def build_slice_accumulate():
    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, a: pl.Tensor[[32, 32], pl.FP32], b: pl.Tensor[[32, 64], pl.FP32],
                 out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
            am = pl.load(a, [0, 0], [32, 32], target_memory=pl.Mem.Mat)
            bm = pl.load(b, [0, 0], [32, 64], target_memory=pl.Mem.Mat)
            acc = pl.matmul(pl.move(am, target_memory=pl.Mem.Left), pl.move(bm, target_memory=pl.Mem.Right))
            a1 = pl.load(a, [16, 0], [16, 32], target_memory=pl.Mem.Mat)
            win = pl.tile.slice(acc, [16, 64], [16, 0])
            win = pl.matmul_acc(win, pl.move(a1, target_memory=pl.Mem.Left), pl.move(bm, target_memory=pl.Mem.Right))
            out = pl.store(acc, [0, 0], out)
            return out

    return P


def _inputs(seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {"a": rng.standard_normal((32, 32)).astype(np.float32),
            "b": rng.standard_normal((32, 64)).astype(np.float32), "out": np.zeros((32, 64), np.float32)}


def test_matmul_acc_into_an_acc_slice_writes_the_parent():
    program = build_slice_accumulate()
    x = _inputs()
    want = x["a"].astype(np.float64) @ x["b"]
    want[16:] += x["a"][16:].astype(np.float64) @ x["b"]  # rows 16..31 hold the accumulation
    got = run_program(program, x, None, SHAPE)["out"]
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_the_pipeline_refuses_a_row_window_of_an_acc_tile_as_a_matmul_destination():
    # Not contiguous in L0C: the cube would write rows outside it (docs/passes/canonicalize_tile_slice.md).
    with pytest.raises(ValueError, match="16x64 row window of a 32x64 Acc"):
        compiled(build_slice_accumulate())


def build_k_loop(blocks: int):
    """Two row windows of one Acc tile, each accumulated over the K blocks inside a loop."""
    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, a: pl.Tensor[[32, 64], pl.FP32], b: pl.Tensor[[64, 32], pl.FP32],
                 out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
            acc = pl.tile.create([32, 32], dtype=pl.FP32, target_memory=pl.Mem.Acc)
            z = pl.tile.full([32, 32], dtype=pl.FP32, value=0.0)
            acc = pl.move(z, target_memory=pl.Mem.Acc)
            for r in pl.range(2):
                win = pl.tile.slice(acc, [16, 32], [r * 16, 0])
                for k in pl.range(blocks):
                    ak = pl.load(a, [r * 16, k * 16], [16, 16], target_memory=pl.Mem.Mat)
                    bk = pl.load(b, [k * 16, 0], [16, 32], target_memory=pl.Mem.Mat)
                    win = pl.matmul_acc(win, pl.move(ak, target_memory=pl.Mem.Left),
                                        pl.move(bk, target_memory=pl.Mem.Right))
            out = pl.store(acc, [0, 0], out)
            return out

    return P


def test_a_loop_keeps_accumulating_through_the_window():
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((32, 64)).astype(np.float32), rng.standard_normal((64, 32)).astype(np.float32)
    got = run_program(build_k_loop(4), {"a": a, "b": b, "out": np.zeros((32, 32), np.float32)}, None, SHAPE)["out"]
    np.testing.assert_allclose(got, a.astype(np.float64) @ b, rtol=1e-4, atol=1e-4)


def build_moved_before():
    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, a: pl.Tensor[[32, 32], pl.FP32], b: pl.Tensor[[32, 64], pl.FP32],
                 out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
            am = pl.load(a, [0, 0], [32, 32], target_memory=pl.Mem.Mat)
            bm = pl.load(b, [0, 0], [32, 64], target_memory=pl.Mem.Mat)
            acc = pl.matmul(pl.move(am, target_memory=pl.Mem.Left), pl.move(bm, target_memory=pl.Mem.Right))
            before = pl.move(acc, target_memory=pl.Mem.Vec)
            win = pl.tile.slice(acc, [16, 64], [0, 0])
            win = pl.matmul_acc(win, pl.move(pl.load(a, [0, 0], [16, 32], target_memory=pl.Mem.Mat),
                                             target_memory=pl.Mem.Left), pl.move(bm, target_memory=pl.Mem.Right))
            out = pl.store(before, [0, 0], out)
            return out

    return P


def test_a_move_out_of_acc_is_a_copy_taken_when_it_runs():
    x = _inputs(2)
    got = run_program(build_moved_before(), x, None, SHAPE)["out"]
    np.testing.assert_allclose(got, x["a"].astype(np.float64) @ x["b"], rtol=1e-4, atol=1e-4)


def build_vec_slice():
    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, x: pl.Tensor[[16, 64], pl.FP32],
                 out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
            t = pl.load(x, [0, 0], [16, 64])
            s = pl.tile.slice(t, [8, 64], [0, 0])
            f = pl.tile.fillpad_inplace(pl.tile.set_validshape(s, 8, 32))
            out = pl.store(t, [0, 0], out)
            return out

    return P


def test_vec_views_stay_values():
    x = np.random.default_rng(3).standard_normal((16, 64)).astype(np.float32)
    got = run_program(build_vec_slice(), {"x": x, "out": np.zeros((16, 64), np.float32)}, None, SHAPE)["out"]
    np.testing.assert_array_equal(got, x)

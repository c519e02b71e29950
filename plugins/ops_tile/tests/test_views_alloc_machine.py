"""Buffer declarations, generators, concat, padding and views (the creation, generators, assemble, padding and
views families): reference-machine results against numpy formulas written here."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

import pypto.language as pl
from pypto_core.interp import run_program, shape_from_backend
from pypto_core.ir.function import Program

SHAPE = shape_from_backend("Ascend910B")
INF = np.float32(np.inf)


@cache
def _pipeline():
    from pypto_core.config import parse_config_text, resolve_config
    from pypto_core.passes.manager import PassManager

    loaded = parse_config_text('backend = "Ascend910B"\nverify = "basic"\n[pipeline]\npasses = ["default"]\n',
                               "<views_alloc tests>")
    resolved = resolve_config(loaded)
    return PassManager(resolved.passes, backend=resolved.backend, verify="basic")


def compiled(program: Program) -> Program:
    return _pipeline().run(program)


def run(program: Program, inputs: dict, after_pipeline: bool = False) -> dict:
    return run_program(compiled(program) if after_pipeline else program, inputs, None, SHAPE)


def rand(shape, seed: int = 0, dtype=np.float32) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


# -- tile ops (InCore) ----------------------------------------------------------------------------------------
def build_tile_ops(rows: int, cols: int, vr: int, vc: int, diag: int):
    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, x: pl.Tensor[[rows, cols], pl.FP32], y: pl.Tensor[[rows, 16], pl.FP32],
                 cat: pl.Out[pl.Tensor[[rows, cols + 16], pl.FP32]], low: pl.Out[pl.Tensor[[rows, rows], pl.FP32]],
                 pad: pl.Out[pl.Tensor[[rows, cols], pl.FP32]], grown: pl.Out[pl.Tensor[[rows * 2, cols], pl.FP32]],
                 inplace: pl.Out[pl.Tensor[[rows, cols], pl.FP32]]):
            a = pl.load(x, [0, 0], [rows, cols])
            c = pl.tile.concat(a, pl.load(y, [0, 0], [rows, 16]))
            cat = pl.store(c, [0, 0], cat)
            t = pl.tile.tri(diag, [rows, rows], dtype=pl.FP32, upper=True)
            low = pl.store(t, [0, 0], low)
            p = pl.load(x, [0, 0], [rows, cols], valid_shape=[vr, vc])
            pad = pl.store(pl.tile.fillpad(p, pad_value=pl.PadValue.min), [0, 0], pad)
            grown = pl.store(pl.tile.fillpad_expand(p, [rows * 2, cols], pad_value=pl.PadValue.max), [0, 0], grown)
            q = pl.tile.fillpad_inplace(p)
            inplace = pl.store(q, [0, 0], inplace)
            return cat, low, pad, grown, inplace

    return P


@pytest.mark.parametrize("after_pipeline", [False, True])
def test_tile_ops(after_pipeline: bool):
    rows, cols, vr, vc, diag = 16, 32, 10, 20, 1
    x, y = rand((rows, cols)), rand((rows, 16), 1)
    zeros = {n: np.zeros(s, np.float32) for n, s in (("cat", (rows, cols + 16)), ("low", (rows, rows)),
                                                     ("pad", (rows, cols)), ("grown", (rows * 2, cols)),
                                                     ("inplace", (rows, cols)))}
    got = run(build_tile_ops(rows, cols, vr, vc, diag), {"x": x, "y": y, **zeros}, after_pipeline)
    np.testing.assert_array_equal(got["cat"], np.concatenate([x, y], axis=1))
    i, j = np.indices((rows, rows))
    np.testing.assert_array_equal(got["low"], (j - i >= diag).astype(np.float32))
    pad = np.full((rows, cols), -INF)
    pad[:vr, :vc] = x[:vr, :vc]
    np.testing.assert_array_equal(got["pad"], pad)
    grown = np.full((rows * 2, cols), INF)
    grown[:vr, :vc] = x[:vr, :vc]
    np.testing.assert_array_equal(got["grown"], grown)
    zero = np.zeros((rows, cols), np.float32)
    zero[:vr, :vc] = x[:vr, :vc]
    np.testing.assert_array_equal(got["inplace"], zero)


def test_fillpad_of_integers_uses_the_dtype_limits():
    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, x: pl.Tensor[[8, 16], pl.INT32], out: pl.Out[pl.Tensor[[8, 16], pl.INT32]]):
            p = pl.load(x, [0, 0], [8, 16], valid_shape=[8, 5])
            out = pl.store(pl.tile.fillpad(p, pad_value=pl.PadValue.max), [0, 0], out)
            return out

    x = np.arange(128, dtype=np.int32).reshape(8, 16)
    got = run(P, {"x": x, "out": np.zeros((8, 16), np.int32)})["out"]
    want = np.full((8, 16), np.iinfo(np.int32).max, np.int32)
    want[:, :5] = x[:, :5]
    np.testing.assert_array_equal(got, want)


def test_alloc_runs_and_gives_a_ptr():
    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, x: pl.Tensor[[8, 16], pl.FP32], out: pl.Out[pl.Tensor[[8, 16], pl.FP32]]):
            buf: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 512)
            t: pl.Tile[[8, 16], pl.FP32, pl.MemRef(buf, 0, 512), pl.Mem.Vec] = pl.load(x, [0, 0], [8, 16])
            out = pl.store(pl.tile.adds(t, 0.0), [0, 0], out)
            return out

    x = rand((8, 16))
    np.testing.assert_array_equal(run(P, {"x": x, "out": np.zeros((8, 16), np.float32)})["out"], x)


# -- tensor ops (lowered by ConvertTensorToTileOps) -------------------------------------------------------------
def build_tensor_ops(m: int, n: int, start: int):
    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, x: pl.Tensor[[m, n], pl.FP32], y: pl.Tensor[[m, n], pl.FP32],
                 cat: pl.Out[pl.Tensor[[m, 2 * n], pl.FP32]], idx: pl.Out[pl.Tensor[[1, n], pl.INT32]],
                 pad: pl.Out[pl.Tensor[[m, n], pl.FP32]], viewed: pl.Out[pl.Tensor[[n, m], pl.FP32]]):
            with pl.at(level=pl.Level.CORE_GROUP):
                cat = pl.assemble(cat, pl.concat(x, y), [0, 0])
                idx = pl.assemble(idx, pl.tensor.ci(start, [1, n], descending=True), [0, 0])
                part = pl.tensor.set_validshape(x, m // 2, n)
                pad = pl.assemble(pad, pl.tensor.fillpad(part, pad_value=pl.PadValue.zero), [0, 0])
                viewed = pl.assemble(viewed, pl.tensor.view(x, [n, m]), [0, 0])
            return cat, idx, pad, viewed

    return P


@pytest.mark.parametrize("after_pipeline", [False, True])
def test_tensor_ops(after_pipeline: bool):
    m, n, start = 16, 32, 7
    x, y = rand((m, n)), rand((m, n), 1)
    outs = {"cat": np.zeros((m, 2 * n), np.float32), "idx": np.zeros((1, n), np.int32),
            "pad": np.zeros((m, n), np.float32), "viewed": np.zeros((n, m), np.float32)}
    got = run(build_tensor_ops(m, n, start), {"x": x, "y": y, **outs}, after_pipeline)
    np.testing.assert_array_equal(got["cat"], np.hstack([x, y]))
    np.testing.assert_array_equal(got["idx"], (start - np.arange(n)).reshape(1, n).astype(np.int32))
    pad = x.copy()
    pad[m // 2:] = 0
    np.testing.assert_array_equal(got["pad"], pad)
    np.testing.assert_array_equal(got["viewed"], x.reshape(n, m))


def test_tensor_view_with_a_layout_flip_reads_the_memory_column_major():
    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, x: pl.Tensor[[8, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 8], pl.FP32]]):
            with pl.at(level=pl.Level.CORE_GROUP):
                out = pl.assemble(out, pl.tensor.view(x, layout=pl.TensorLayout.DN), [0, 0])
            return out

    x = rand((8, 16))
    np.testing.assert_array_equal(run(P, {"x": x, "out": np.zeros((16, 8), np.float32)})["out"], x.T)


def test_tensor_random_matches_tile_random():
    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, a: pl.Out[pl.Tensor[[4, 16], pl.UINT32]], b: pl.Out[pl.Tensor[[4, 16], pl.UINT32]]):
            a = pl.store(pl.tile.random(1, 2, 3, 4, 5, 6, [4, 16]), [0, 0], a)
            b = pl.assemble(b, pl.tensor.random(1, 2, 3, 4, 5, 6, [4, 16]), [0, 0])
            return a, b

    got = run(P, {"a": np.zeros((4, 16), np.uint32), "b": np.zeros((4, 16), np.uint32)})
    np.testing.assert_array_equal(got["a"], got["b"])
    assert len(np.unique(got["a"])) > 60  # 64 distinct words

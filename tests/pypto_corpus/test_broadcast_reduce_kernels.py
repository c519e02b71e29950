"""PyPTO-style kernels of the broadcast / reduction family: row / column broadcasts
(row_expand, col_expand and their _max / _min / _expdif forms), products and arg-reductions, the `axis` /
`keep_dim` kwargs of tensor reductions, and batched / 1-D `tensor.matmul`. Each kernel is built by a
parametrised builder whose closure values the DSL reads, checked against a numpy formula written here, as
written and after the default pipeline."""

from __future__ import annotations

import numpy as np
import pytest

import pypto.language as pl

from .harness import check_kernel

RNG = np.random.default_rng(1414)


def data(shape, low=-2.0, high=2.0, dtype=np.float32):
    if np.issubdtype(dtype, np.integer):
        return RNG.integers(-9, 10, size=shape).astype(dtype)
    return RNG.uniform(low, high, size=shape).astype(dtype)


def f32(x):
    return np.asarray(x, dtype=np.float64)


# -- tensor-level broadcasts ---------------------------------------------------------------------------
def build_row_expand_add_back(shape):
    m, n = shape

    @pl.program
    class RowExpandAddBack:
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, x: pl.Tensor[[m, n], pl.FP32], v: pl.Tensor[[m, 1], pl.FP32],
                 out: pl.Out[pl.Tensor[[m, n], pl.FP32]]) -> pl.Tensor[[m, n], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                b = pl.row_expand(x, v)
                y = pl.add(b, x)
                out = pl.assemble(out, y, [0, 0])
            return out
    return RowExpandAddBack


@pytest.mark.parametrize("shape", [[16, 64], [8, 32]])
def test_row_expand_broadcasts_the_vector(shape):
    x, v = data(tuple(shape)), data((shape[0], 1))
    check_kernel(build_row_expand_add_back(shape), {"x": x, "v": v, "out": np.zeros(shape, np.float32)},
                 {"out": (np.broadcast_to(v, x.shape) + x).astype(np.float32)})


def build_col_expand_scale(m, n, scale):
    @pl.program
    class ColExpandScale:
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, x: pl.Tensor[[m, n], pl.FP32], g: pl.Tensor[[1, n], pl.FP32],
                 out: pl.Out[pl.Tensor[[m, n], pl.FP32]]) -> pl.Tensor[[m, n], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                b = pl.col_expand(x, g)
                y = pl.mul(pl.mul(b, x), scale)
                out = pl.assemble(out, y, [0, 0])
            return out
    return ColExpandScale


def test_col_expand_then_scale():
    m, n = 16, 48
    x, g = data((m, n)), data((1, n))
    check_kernel(build_col_expand_scale(m, n, 0.5), {"x": x, "g": g, "out": np.zeros((m, n), np.float32)},
                 {"out": (np.broadcast_to(g, x.shape) * x * 0.5).astype(np.float32)})


def build_softmax_expdif(m, n, dt):
    @pl.program
    class SoftmaxExpdif:
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, x: pl.Tensor[[m, n], dt], out: pl.Out[pl.Tensor[[m, n], dt]]) -> pl.Tensor[[m, n], dt]:
            with pl.at(level=pl.Level.CORE_GROUP):
                mx = pl.row_max(x)
                e = pl.row_expand_expdif(x, mx)
                total = pl.row_sum(e)
                y = pl.row_expand_div(e, total)
                out = pl.assemble(out, y, [0, 0])
            return out
    return SoftmaxExpdif


@pytest.mark.parametrize("m,n", [(16, 64), (32, 32)])
def test_row_softmax_with_expdif(m, n):
    x = data((m, n), -4, 4)
    e = np.exp(f32(x) - f32(x).max(axis=1, keepdims=True))
    check_kernel(build_softmax_expdif(m, n, pl.FP32), {"x": x, "out": np.zeros((m, n), np.float32)},
                 {"out": (e / e.sum(axis=1, keepdims=True)).astype(np.float32)})


def build_col_softmax(m, n):
    @pl.program
    class ColSoftmax:
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, x: pl.Tensor[[m, n], pl.FP32], out: pl.Out[pl.Tensor[[m, n], pl.FP32]]) -> pl.Tensor[[m, n], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                mx = pl.col_max(x)
                e = pl.col_expand_expdif(x, mx)
                total = pl.col_sum(e)
                y = pl.col_expand_div(e, total)
                out = pl.assemble(out, y, [0, 0])
            return out
    return ColSoftmax


def test_column_softmax_with_expdif():
    m, n = 16, 32
    x = data((m, n), -3, 3)
    e = np.exp(f32(x) - f32(x).max(axis=0, keepdims=True))
    check_kernel(build_col_softmax(m, n), {"x": x, "out": np.zeros((m, n), np.float32)},
                 {"out": (e / e.sum(axis=0, keepdims=True)).astype(np.float32)})


def build_row_clip(m, n, dt):
    @pl.program
    class RowClip:
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, x: pl.Tensor[[m, n], dt], lo: pl.Tensor[[m, 1], dt], hi: pl.Tensor[[m, 1], dt],
                 out: pl.Out[pl.Tensor[[m, n], dt]]) -> pl.Tensor[[m, n], dt]:
            with pl.at(level=pl.Level.CORE_GROUP):
                a = pl.row_expand_max(x, lo)
                y = pl.row_expand_min(a, hi)
                out = pl.assemble(out, y, [0, 0])
            return out
    return RowClip


@pytest.mark.parametrize("dt,npdt", [(pl.FP32, np.float32), (pl.INT32, np.int32), (pl.FP16, np.float16)])
def test_row_clip_with_expand_max_min(dt, npdt):
    m, n = 16, 32
    x = data((m, n), dtype=npdt)
    lo = data((m, 1), -2, 0, dtype=npdt) if npdt is not np.int32 else RNG.integers(-9, 0, (m, 1)).astype(npdt)
    hi = data((m, 1), 0, 2, dtype=npdt) if npdt is not np.int32 else RNG.integers(0, 9, (m, 1)).astype(npdt)
    check_kernel(build_row_clip(m, n, dt), {"x": x, "lo": lo, "hi": hi, "out": np.zeros((m, n), npdt)},
                 {"out": np.minimum(np.maximum(x, lo), hi).astype(npdt)})


def build_col_clip(m, n):
    @pl.program
    class ColClip:
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, x: pl.Tensor[[m, n], pl.FP32], lo: pl.Tensor[[1, n], pl.FP32], hi: pl.Tensor[[1, n], pl.FP32],
                 out: pl.Out[pl.Tensor[[m, n], pl.FP32]]) -> pl.Tensor[[m, n], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                a = pl.col_expand_max(x, lo)
                y = pl.col_expand_min(a, hi)
                out = pl.assemble(out, y, [0, 0])
            return out
    return ColClip


def test_col_clip_with_expand_max_min():
    m, n = 8, 64
    x, lo, hi = data((m, n)), data((1, n), -2, 0), data((1, n), 0, 2)
    check_kernel(build_col_clip(m, n), {"x": x, "lo": lo, "hi": hi, "out": np.zeros((m, n), np.float32)},
                 {"out": np.minimum(np.maximum(x, lo), hi)})


def build_mixed_dtype_expand(m, n):
    @pl.program
    class MixedDtypeExpand:
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, x: pl.Tensor[[m, n], pl.FP16], v: pl.Tensor[[m, 1], pl.FP32],
                 out: pl.Out[pl.Tensor[[m, n], pl.FP32]]) -> pl.Tensor[[m, n], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                y = pl.row_expand_max(x, v)
                out = pl.assemble(out, y, [0, 0])
            return out
    return MixedDtypeExpand


def test_expand_promotes_fp16_with_fp32():
    m, n = 16, 32
    x, v = data((m, n), dtype=np.float16), data((m, 1))
    check_kernel(build_mixed_dtype_expand(m, n), {"x": x, "v": v, "out": np.zeros((m, n), np.float32)},
                 {"out": np.maximum(x.astype(np.float32), v)})


# -- tensor-level reductions ---------------------------------------------------------------------------
def build_row_prod(m, n, in_dt, out_shape, out_dt):
    @pl.program
    class RowProd:
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, x: pl.Tensor[[m, n], in_dt], out: pl.Out[pl.Tensor[out_shape, out_dt]]) -> pl.Tensor[out_shape, out_dt]:
            with pl.at(level=pl.Level.CORE_GROUP):
                y = pl.row_prod(x)
                out = pl.assemble(out, y, [0, 0])
            return out
    return RowProd


def build_col_prod(m, n, in_dt, out_shape, out_dt):
    @pl.program
    class ColProd:
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, x: pl.Tensor[[m, n], in_dt], out: pl.Out[pl.Tensor[out_shape, out_dt]]) -> pl.Tensor[out_shape, out_dt]:
            with pl.at(level=pl.Level.CORE_GROUP):
                y = pl.col_prod(x)
                out = pl.assemble(out, y, [0, 0])
            return out
    return ColProd


def build_row_argmin(m, n, in_dt, out_shape, out_dt):
    @pl.program
    class RowArgmin:
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, x: pl.Tensor[[m, n], in_dt], out: pl.Out[pl.Tensor[out_shape, out_dt]]) -> pl.Tensor[out_shape, out_dt]:
            with pl.at(level=pl.Level.CORE_GROUP):
                y = pl.row_argmin(x)
                out = pl.assemble(out, y, [0, 0])
            return out
    return RowArgmin


def build_col_argmax(m, n, in_dt, out_shape, out_dt):
    @pl.program
    class ColArgmax:
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, x: pl.Tensor[[m, n], in_dt], out: pl.Out[pl.Tensor[out_shape, out_dt]]) -> pl.Tensor[out_shape, out_dt]:
            with pl.at(level=pl.Level.CORE_GROUP):
                y = pl.col_argmax(x)
                out = pl.assemble(out, y, [0, 0])
            return out
    return ColArgmax


def build_col_argmin(m, n, in_dt, out_shape, out_dt):
    @pl.program
    class ColArgmin:
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, x: pl.Tensor[[m, n], in_dt], out: pl.Out[pl.Tensor[out_shape, out_dt]]) -> pl.Tensor[out_shape, out_dt]:
            with pl.at(level=pl.Level.CORE_GROUP):
                y = pl.col_argmin(x)
                out = pl.assemble(out, y, [0, 0])
            return out
    return ColArgmin


def build_reduce(name, m, n, in_dt, out_shape, out_dt):
    return globals()[f"build_{name}"](m, n, in_dt, out_shape, out_dt)


REDUCTIONS = {
    "row_prod": (lambda x: np.prod(f32(x), axis=1, keepdims=True), True, None),
    "col_prod": (lambda x: np.prod(f32(x), axis=0, keepdims=True), False, None),
    "row_argmin": (lambda x: np.argmin(x, axis=1)[:, None], True, np.int32),
    "col_argmax": (lambda x: np.argmax(x, axis=0)[None, :], False, np.int32),
    "col_argmin": (lambda x: np.argmin(x, axis=0)[None, :], False, np.int32),
}


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
@pytest.mark.parametrize("m,n", [(16, 32), (8, 64)])
def test_tensor_reductions(name, m, n):
    formula, row, idx = REDUCTIONS[name]
    x = data((m, n), 0.8, 1.25)
    out_shape = [m, 1] if row else [1, n]
    out_dt, npdt = (pl.INT32, np.int32) if idx else (pl.FP32, np.float32)
    check_kernel(build_reduce(name, m, n, pl.FP32, out_shape, out_dt), {"x": x, "out": np.zeros(out_shape, npdt)},
                 {"out": formula(x).astype(npdt)})


def test_int_col_prod():
    m, n = 4, 32
    x = RNG.integers(-3, 4, (m, n)).astype(np.int32)
    check_kernel(build_reduce("col_prod", m, n, pl.INT32, [1, n], pl.INT32), {"x": x, "out": np.zeros((1, n), np.int32)},
                 {"out": np.prod(x, axis=0, keepdims=True).astype(np.int32)})


def build_reduce_axis(m, n, axis):
    @pl.program
    class ReduceAxis:
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, x: pl.Tensor[[m, n], pl.FP32], out: pl.Out[pl.Tensor[[1, n], pl.FP32]]) -> pl.Tensor[[1, n], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                y = pl.tensor.row_prod(x, axis=axis)
                out = pl.assemble(out, y, [0, 0])
            return out
    return ReduceAxis


def test_row_prod_on_axis_0_is_a_column_product():
    m, n = 8, 32
    x = data((m, n), 0.8, 1.25)
    check_kernel(build_reduce_axis(m, n, 0), {"x": x, "out": np.zeros((1, n), np.float32)},
                 {"out": np.prod(f32(x), axis=0, keepdims=True).astype(np.float32)})


def build_argmax_flat(m, n):
    @pl.program
    class ArgmaxFlat:
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, x: pl.Tensor[[m, n], pl.FP32], out: pl.Out[pl.Tensor[[n], pl.INT32]]) -> pl.Tensor[[n], pl.INT32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                y = pl.tensor.col_argmax(x, keep_dim=False)
                out = pl.assemble(out, y, [0])
            return out
    return ArgmaxFlat


def test_col_argmax_without_keep_dim():
    m, n = 16, 32
    x = data((m, n))
    check_kernel(build_argmax_flat(m, n), {"x": x, "out": np.zeros((n,), np.int32)},
                 {"out": np.argmax(x, axis=0).astype(np.int32)})


def build_argmin_ties(m, n):
    @pl.program
    class ArgminTies:
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, x: pl.Tensor[[m, n], pl.INT32], out: pl.Out[pl.Tensor[[m, 1], pl.INT32]]) -> pl.Tensor[[m, 1], pl.INT32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                y = pl.row_argmin(x)
                out = pl.assemble(out, y, [0, 0])
            return out
    return ArgminTies


def test_row_argmin_first_index_on_ties():
    m, n = 8, 16
    x = RNG.integers(0, 3, (m, n)).astype(np.int32)  # many ties
    check_kernel(build_argmin_ties(m, n), {"x": x, "out": np.zeros((m, 1), np.int32)},
                 {"out": np.argmin(x, axis=1)[:, None].astype(np.int32)})


def build_geo_mean(m, n):
    inv = 1.0 / n

    @pl.program
    class GeoMeanNormalise:
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, x: pl.Tensor[[m, n], pl.FP32], out: pl.Out[pl.Tensor[[m, n], pl.FP32]]) -> pl.Tensor[[m, n], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                p = pl.row_prod(x)
                g = pl.exp(pl.mul(pl.log(p), inv))
                y = pl.row_expand_div(x, g)
                out = pl.assemble(out, y, [0, 0])
            return out
    return GeoMeanNormalise


def test_row_geometric_mean_normalise():
    m, n = 16, 16
    x = data((m, n), 0.5, 2.0)
    g = np.exp(np.log(np.prod(f32(x), axis=1, keepdims=True)) / n)
    check_kernel(build_geo_mean(m, n), {"x": x, "out": np.zeros((m, n), np.float32)},
                 {"out": (f32(x) / g).astype(np.float32)})


# -- matmul: batched and 1-D -------------------------------------------------------------------------
def build_batched_matmul(b, m, k, n, out_dt):
    @pl.program
    class BatchedMatmul:
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, a: pl.Tensor[[b, m, k], pl.FP16], w: pl.Tensor[[b, k, n], pl.FP16],
                 out: pl.Out[pl.Tensor[[b, m, n], out_dt]]) -> pl.Tensor[[b, m, n], out_dt]:
            with pl.at(level=pl.Level.CORE_GROUP):
                c = pl.matmul(a, w, out_dtype=out_dt)
                out = pl.assemble(out, c, [0, 0, 0])
            return out
    return BatchedMatmul


@pytest.mark.parametrize("b,m,k,n", [(2, 16, 32, 16), (3, 16, 16, 32)])
def test_batched_matmul(b, m, k, n):
    a, w = data((b, m, k), dtype=np.float16), data((b, k, n), dtype=np.float16)
    want = np.matmul(a.astype(np.float32), w.astype(np.float32))
    check_kernel(build_batched_matmul(b, m, k, n, pl.FP32), {"a": a, "w": w, "out": np.zeros((b, m, n), np.float32)},
                 {"out": want})


def build_batched_shared_weight(b, m, k, n):
    @pl.program
    class BatchedSharedWeight:
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, a: pl.Tensor[[b, m, k], pl.FP32], w: pl.Tensor[[k, n], pl.FP32],
                 out: pl.Out[pl.Tensor[[b, m, n], pl.FP32]]) -> pl.Tensor[[b, m, n], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                c = pl.matmul(a, w)
                out = pl.assemble(out, c, [0, 0, 0])
            return out
    return BatchedSharedWeight


def test_batched_matmul_with_a_shared_weight():
    b, m, k, n = 2, 16, 32, 16
    a, w = data((b, m, k)), data((k, n))
    check_kernel(build_batched_shared_weight(b, m, k, n), {"a": a, "w": w, "out": np.zeros((b, m, n), np.float32)},
                 {"out": np.matmul(f32(a), f32(w)).astype(np.float32)})


def build_batched_broadcast(m, k, n):
    @pl.program
    class BatchedBroadcast:
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, a: pl.Tensor[[2, 1, m, k], pl.FP32], w: pl.Tensor[[3, k, n], pl.FP32],
                 out: pl.Out[pl.Tensor[[2, 3, m, n], pl.FP32]]) -> pl.Tensor[[2, 3, m, n], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                c = pl.matmul(a, w)
                out = pl.assemble(out, c, [0, 0, 0, 0])
            return out
    return BatchedBroadcast


def test_batched_matmul_broadcasts_batch_dims():
    m, k, n = 16, 16, 16
    a, w = data((2, 1, m, k)), data((3, k, n))
    check_kernel(build_batched_broadcast(m, k, n), {"a": a, "w": w, "out": np.zeros((2, 3, m, n), np.float32)},
                 {"out": np.matmul(f32(a), f32(w)).astype(np.float32)})


def build_batched_then_exp(b, m, k, n):
    @pl.program
    class BatchedThenRowMax:
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, a: pl.Tensor[[b, m, k], pl.FP32], w: pl.Tensor[[b, k, n], pl.FP32],
                 out: pl.Out[pl.Tensor[[b, m, n], pl.FP32]]) -> pl.Tensor[[b, m, n], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                c = pl.matmul(a, w)
                y = pl.mul(c, 0.25)
                out = pl.assemble(out, y, [0, 0, 0])
            return out
    return BatchedThenRowMax


def test_batched_matmul_then_a_vector_epilogue():
    b, m, k, n = 2, 16, 16, 32
    a, w = data((b, m, k)), data((b, k, n))
    check_kernel(build_batched_then_exp(b, m, k, n), {"a": a, "w": w, "out": np.zeros((b, m, n), np.float32)},
                 {"out": (np.matmul(f32(a), f32(w)) * 0.25).astype(np.float32)})


def build_batched_accumulate(b, m, k, n):
    @pl.program
    class BatchedAccumulate:
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, acc: pl.Tensor[[b, m, n], pl.FP32], a: pl.Tensor[[b, m, k], pl.FP16],
                 w: pl.Tensor[[b, k, n], pl.FP16], out: pl.Out[pl.Tensor[[b, m, n], pl.FP32]]) -> pl.Tensor[[b, m, n], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                c = pl.matmul_acc(acc, a, w)
                out = pl.assemble(out, c, [0, 0, 0])
            return out
    return BatchedAccumulate


def test_batched_matmul_acc():
    b, m, k, n = 2, 16, 32, 16
    acc, a, w = data((b, m, n)), data((b, m, k), dtype=np.float16), data((b, k, n), dtype=np.float16)
    want = (f32(acc) + np.matmul(a.astype(np.float32), w.astype(np.float32))).astype(np.float32)
    check_kernel(build_batched_accumulate(b, m, k, n),
                 {"acc": acc, "a": a, "w": w, "out": np.zeros((b, m, n), np.float32)}, {"out": want})


def build_batched_transposed(b, m, k, n):
    @pl.program
    class BatchedTransposed:
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, a: pl.Tensor[[b, k, m], pl.FP32], w: pl.Tensor[[b, n, k], pl.FP32],
                 out: pl.Out[pl.Tensor[[b, m, n], pl.FP32]]) -> pl.Tensor[[b, m, n], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                c = pl.matmul(a, w, a_trans=True, b_trans=True)
                out = pl.assemble(out, c, [0, 0, 0])
            return out
    return BatchedTransposed


# A batched a_trans / b_trans: FlattenTileNdTo2D pages the 3-D transposes (docs/passes/flatten_tile_nd_to_2d.md).
def test_batched_matmul_transposed():
    b, m, k, n = 2, 16, 16, 16
    a, w = data((b, k, m)), data((b, n, k))
    want = np.matmul(np.swapaxes(f32(a), 1, 2), np.swapaxes(f32(w), 1, 2)).astype(np.float32)
    check_kernel(build_batched_transposed(b, m, k, n), {"a": a, "w": w, "out": np.zeros((b, m, n), np.float32)},
                 {"out": want})


def build_matvec(m, k):
    @pl.program
    class MatVec:
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, a: pl.Tensor[[m, k], pl.FP32], x: pl.Tensor[[k], pl.FP32],
                 out: pl.Out[pl.Tensor[[m], pl.FP32]]) -> pl.Tensor[[m], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                y = pl.matmul(a, x)
                out = pl.assemble(out, y, [0])
            return out
    return MatVec


def test_matrix_vector_product():
    m, k = 16, 32
    a, x = data((m, k)), data((k,))
    check_kernel(build_matvec(m, k), {"a": a, "x": x, "out": np.zeros((m,), np.float32)},
                 {"out": (f32(a) @ f32(x)).astype(np.float32)})


def build_attention(s, d):
    scale = 1.0 / float(np.sqrt(d))

    @pl.program
    class Attention:
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, q: pl.Tensor[[s, d], pl.FP32], k: pl.Tensor[[s, d], pl.FP32], v: pl.Tensor[[s, d], pl.FP32],
                 out: pl.Out[pl.Tensor[[s, d], pl.FP32]]) -> pl.Tensor[[s, d], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                sc = pl.mul(pl.matmul(q, k, b_trans=True), scale)
                mx = pl.row_max(sc)
                p = pl.row_expand_expdif(sc, mx)
                total = pl.row_sum(p)
                o = pl.matmul(p, v)
                y = pl.row_expand_div(o, total)
                out = pl.assemble(out, y, [0, 0])
            return out
    return Attention


def test_attention_with_expdif_softmax():
    s, d = 16, 32
    q, k, v = data((s, d)), data((s, d)), data((s, d))
    sc = f32(q) @ f32(k).T / np.sqrt(d)
    p = np.exp(sc - sc.max(axis=1, keepdims=True))
    check_kernel(build_attention(s, d), {"q": q, "k": k, "v": v, "out": np.zeros((s, d), np.float32)},
                 {"out": ((p @ f32(v)) / p.sum(axis=1, keepdims=True)).astype(np.float32)})


# -- explicit tile code (InCore: pl.load / pl.tile.* / pl.store) ---------------------------------------
def build_tile_expands(m, n):
    @pl.program
    class TileExpands:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, x: pl.Tensor[[m, n], pl.FP32], r: pl.Tensor[[m, 1], pl.FP32], c: pl.Tensor[[1, n], pl.FP32],
                 out: pl.Out[pl.Tensor[[m, n], pl.FP32]]) -> pl.Tensor[[m, n], pl.FP32]:
            xt = pl.load(x, [0, 0], [m, n])
            rt = pl.load(r, [0, 0], [m, 1])
            ct = pl.load(c, [0, 0], [1, n])
            rb = pl.tile.row_expand(xt, rt)
            cb = pl.tile.col_expand(xt, ct)
            y = pl.tile.add(pl.tile.mul(rb, cb), xt)
            out = pl.store(y, [0, 0], out)
            return out
    return TileExpands


def test_tile_row_and_col_expand():
    m, n = 16, 64
    x, r, c = data((m, n)), data((m, 1)), data((1, n))
    check_kernel(build_tile_expands(m, n), {"x": x, "r": r, "c": c, "out": np.zeros((m, n), np.float32)},
                 {"out": (f32(r) * f32(c) + f32(x)).astype(np.float32)})


def build_tile_softmax(m, n, vm):
    @pl.program
    class TileSoftmax:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, x: pl.Tensor[[m, n], pl.FP32], out: pl.Out[pl.Tensor[[m, n], pl.FP32]]) -> pl.Tensor[[m, n], pl.FP32]:
            xt = pl.load(x, [0, 0], [m, n], valid_shape=[vm, n])
            tmp = pl.tile.create([m, n], dtype=pl.FP32, target_memory=pl.Mem.Vec)
            mx = pl.tile.row_max(xt, tmp)
            e = pl.tile.row_expand_expdif(xt, mx)
            s = pl.tile.row_sum(e, tmp)
            y = pl.tile.row_expand_div(e, s)
            out = pl.store(y, [0, 0], out)
            return out
    return TileSoftmax


@pytest.mark.parametrize("vm", [16, 11])
def test_tile_softmax_with_expdif_on_valid_rows(vm):
    m, n = 16, 32
    x = data((m, n), -3, 3)
    e = np.exp(f32(x) - f32(x).max(axis=1, keepdims=True))
    want = (e / e.sum(axis=1, keepdims=True)).astype(np.float32)
    want[vm:] = 0  # the store writes the valid rows only
    check_kernel(build_tile_softmax(m, n, vm), {"x": x, "out": np.zeros((m, n), np.float32)}, {"out": want})


def build_tile_col_expdif(m, n):
    @pl.program
    class TileColExpdif:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, x: pl.Tensor[[m, n], pl.FP32], out: pl.Out[pl.Tensor[[m, n], pl.FP32]]) -> pl.Tensor[[m, n], pl.FP32]:
            xt = pl.load(x, [0, 0], [m, n])
            mn = pl.tile.col_min(xt)
            y = pl.tile.col_expand_expdif(xt, mn)
            out = pl.store(y, [0, 0], out)
            return out
    return TileColExpdif


def test_tile_col_expand_expdif():
    m, n = 8, 64
    x = data((m, n))
    check_kernel(build_tile_col_expdif(m, n), {"x": x, "out": np.zeros((m, n), np.float32)},
                 {"out": np.exp(f32(x) - f32(x).min(axis=0, keepdims=True)).astype(np.float32)})


def build_tile_clip(m, n):
    @pl.program
    class TileClip:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, x: pl.Tensor[[m, n], pl.FP16], lo: pl.Tensor[[1, n], pl.FP16], hi: pl.Tensor[[m, 1], pl.FP16],
                 cap: pl.Tensor[[1, n], pl.FP16], floor_: pl.Tensor[[m, 1], pl.FP16],
                 out: pl.Out[pl.Tensor[[m, n], pl.FP16]]) -> pl.Tensor[[m, n], pl.FP16]:
            xt = pl.load(x, [0, 0], [m, n])
            a = pl.tile.col_expand_max(xt, pl.load(lo, [0, 0], [1, n]))
            b = pl.tile.row_expand_min(a, pl.load(hi, [0, 0], [m, 1]))
            c = pl.tile.col_expand_min(b, pl.load(cap, [0, 0], [1, n]))
            y = pl.tile.row_expand_max(c, pl.load(floor_, [0, 0], [m, 1]))
            out = pl.store(y, [0, 0], out)
            return out
    return TileClip


def test_tile_clip_with_all_four_bounds():
    m, n = 16, 32
    h = np.float16
    x, lo, hi = data((m, n), dtype=h), data((1, n), -2, -1, dtype=h), data((m, 1), 1, 2, dtype=h)
    cap, floor_ = data((1, n), 0.5, 1.5, dtype=h), data((m, 1), -1.5, -0.5, dtype=h)
    want = np.maximum(np.minimum(np.minimum(np.maximum(x, lo), hi), cap), floor_)
    check_kernel(build_tile_clip(m, n), {"x": x, "lo": lo, "hi": hi, "cap": cap, "floor_": floor_,
                                         "out": np.zeros((m, n), h)}, {"out": want})


def build_tile_prods(m, n):
    @pl.program
    class TileProds:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, x: pl.Tensor[[m, n], pl.FP32], rows: pl.Out[pl.Tensor[[m, 1], pl.FP32]],
                 cols: pl.Out[pl.Tensor[[1, n], pl.FP32]]) -> pl.Tensor[[m, 1], pl.FP32]:
            xt = pl.load(x, [0, 0], [m, n])
            tmp = pl.tile.create([m, n], dtype=pl.FP32, target_memory=pl.Mem.Vec)
            rp = pl.tile.row_prod(xt, tmp)
            cp = pl.tile.col_prod(xt)
            cols = pl.store(cp, [0, 0], cols)
            rows = pl.store(rp, [0, 0], rows)
            return rows
    return TileProds


def test_tile_row_and_col_products():
    m, n = 8, 16
    x = data((m, n), 0.8, 1.25)
    check_kernel(build_tile_prods(m, n), {"x": x, "rows": np.zeros((m, 1), np.float32),
                                          "cols": np.zeros((1, n), np.float32)},
                 {"rows": np.prod(f32(x), axis=1, keepdims=True).astype(np.float32),
                  "cols": np.prod(f32(x), axis=0, keepdims=True).astype(np.float32)})


def build_tile_args(m, n, dt):
    @pl.program
    class TileArgs:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, x: pl.Tensor[[m, n], dt], rmin: pl.Out[pl.Tensor[[m, 1], pl.INT32]],
                 cmax: pl.Out[pl.Tensor[[1, n], pl.INT32]], cmin: pl.Out[pl.Tensor[[1, n], pl.INT32]]) -> pl.Tensor[[m, 1], pl.INT32]:
            xt = pl.load(x, [0, 0], [m, n])
            tmp = pl.tile.create([m, n], dtype=dt, target_memory=pl.Mem.Vec)
            a = pl.row_argmin(xt, tmp)
            b = pl.col_argmax(xt, tmp)
            c = pl.tile.col_argmin(xt, tmp)
            cmax = pl.store(b, [0, 0], cmax)
            cmin = pl.store(c, [0, 0], cmin)
            rmin = pl.store(a, [0, 0], rmin)
            return rmin
    return TileArgs


@pytest.mark.parametrize("dt,npdt", [(pl.FP32, np.float32), (pl.INT16, np.int16), (pl.FP16, np.float16)])
def test_tile_arg_reductions(dt, npdt):
    m, n = 16, 32
    x = data((m, n), dtype=npdt)
    z = np.zeros
    check_kernel(build_tile_args(m, n, dt), {"x": x, "rmin": z((m, 1), np.int32), "cmax": z((1, n), np.int32),
                                             "cmin": z((1, n), np.int32)},
                 {"rmin": np.argmin(x, axis=1)[:, None].astype(np.int32),
                  "cmax": np.argmax(x, axis=0)[None].astype(np.int32),
                  "cmin": np.argmin(x, axis=0)[None].astype(np.int32)})


def build_tile_row_expand_add(m, n):
    @pl.program
    class TileRowExpandAdd:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, x: pl.Tensor[[m, n], pl.INT16], v: pl.Tensor[[m, 1], pl.INT16],
                 out: pl.Out[pl.Tensor[[m, n], pl.INT16]]) -> pl.Tensor[[m, n], pl.INT16]:
            xt = pl.load(x, [0, 0], [m, n])
            vt = pl.load(v, [0, 0], [m, 1])
            tmp = pl.tile.create([m, n], dtype=pl.INT16, target_memory=pl.Mem.Vec)
            y = pl.row_expand_add(xt, vt, tmp=tmp)
            out = pl.store(y, [0, 0], out)
            return out
    return TileRowExpandAdd


def test_tile_row_expand_add_with_tmp():
    m, n = 16, 32
    x, v = data((m, n), dtype=np.int16), data((m, 1), dtype=np.int16)
    check_kernel(build_tile_row_expand_add(m, n), {"x": x, "v": v, "out": np.zeros((m, n), np.int16)},
                 {"out": (x + v).astype(np.int16)})


def build_tile_row_blocks(rows, n, block):
    @pl.program
    class TileRowBlocks:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, x: pl.Tensor[[rows, n], pl.FP32], out: pl.Out[pl.Tensor[[rows, 1], pl.INT32]]) -> pl.Tensor[[rows, 1], pl.INT32]:
            for i in pl.range(rows // block):
                xt = pl.load(x, [i * block, 0], [block, n])
                tmp = pl.tile.create([block, n], dtype=pl.FP32, target_memory=pl.Mem.Vec)
                a = pl.tile.row_argmin(xt, tmp)
                out = pl.store(a, [i * block, 0], out)
            return out
    return TileRowBlocks


def test_tile_row_argmin_in_a_block_loop():
    rows, n, block = 64, 32, 16
    x = data((rows, n))
    check_kernel(build_tile_row_blocks(rows, n, block), {"x": x, "out": np.zeros((rows, 1), np.int32)},
                 {"out": np.argmin(x, axis=1)[:, None].astype(np.int32)})


# -- under the vector split ---------------------------------------------------------------------------
def build_split_row_softmax(m, n, mode):
    @pl.program
    class SplitRowSoftmax:
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, x: pl.Tensor[[m, n], pl.FP32], out: pl.Out[pl.Tensor[[m, n], pl.FP32]]) -> pl.Tensor[[m, n], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(mode)]):
                mx = pl.row_max(x)
                e = pl.row_expand_expdif(x, mx)
                p = pl.row_prod(pl.add(e, 1.0))
                y = pl.row_expand_div(e, p)
                out = pl.assemble(out, y, [0, 0])
            return out
    return SplitRowSoftmax


def test_row_reductions_under_an_up_down_split():
    m, n = 32, 16
    x = data((m, n), -1, 1)
    e = np.exp(f32(x) - f32(x).max(axis=1, keepdims=True))
    want = (e / np.prod(e + 1.0, axis=1, keepdims=True)).astype(np.float32)
    check_kernel(build_split_row_softmax(m, n, pl.SplitMode.UP_DOWN), {"x": x, "out": np.zeros((m, n), np.float32)},
                 {"out": want})


def build_split_col(m, n, mode):
    @pl.program
    class SplitCol:
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, x: pl.Tensor[[m, n], pl.FP32], lo: pl.Tensor[[1, n], pl.FP32],
                 out: pl.Out[pl.Tensor[[m, n], pl.FP32]], idx: pl.Out[pl.Tensor[[1, n], pl.INT32]]) -> pl.Tensor[[m, n], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(mode)]):
                y = pl.col_expand_max(x, lo)
                i = pl.col_argmax(y)
                out = pl.assemble(out, y, [0, 0])
                idx = pl.assemble(idx, i, [0, 0])
            return out
    return SplitCol


def test_column_ops_under_a_left_right_split():
    m, n = 16, 64
    x, lo = data((m, n)), data((1, n), -0.5, 0.5)
    y = np.maximum(x, lo)
    check_kernel(build_split_col(m, n, pl.SplitMode.LEFT_RIGHT),
                 {"x": x, "lo": lo, "out": np.zeros((m, n), np.float32), "idx": np.zeros((1, n), np.int32)},
                 {"out": y, "idx": np.argmax(y, axis=0)[None].astype(np.int32)})


def build_split_batched(b, m, k, n):
    @pl.program
    class SplitBatched:
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, a: pl.Tensor[[b, m, k], pl.FP32], w: pl.Tensor[[b, k, n], pl.FP32],
                 out: pl.Out[pl.Tensor[[b * m, n], pl.FP32]]) -> pl.Tensor[[b * m, n], pl.FP32]:
            # A split kernel stores 2-D tiles into 2-D windows (LowerAutoVectorSplit): flatten the batch first.
            with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(pl.SplitMode.UP_DOWN)]):
                c = pl.reshape(pl.matmul(a, w), [b * m, n])
                y = pl.exp(c)
                out = pl.assemble(out, y, [0, 0])
            return out
    return SplitBatched


def test_batched_matmul_with_a_split_epilogue():
    b, m, k, n = 2, 16, 16, 16
    a, w = data((b, m, k), -0.5, 0.5), data((b, k, n), -0.5, 0.5)
    check_kernel(build_split_batched(b, m, k, n), {"a": a, "w": w, "out": np.zeros((b * m, n), np.float32)},
                 {"out": np.exp(np.matmul(f32(a), f32(w))).reshape(b * m, n).astype(np.float32)})

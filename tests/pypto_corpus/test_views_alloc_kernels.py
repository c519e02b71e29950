"""PyPTO-style kernels of the views / allocation family: tri masks, concat, fillpad (and its
_expand / _inplace forms), tensor set_validshape / view / ci / random / create_l1, alloc, and matmul_acc
into a window of an Acc tile. Each kernel is built by a parametrised builder whose closure
values the DSL reads, checked against a numpy formula written here, as written and after the default
pipeline."""

from __future__ import annotations

import numpy as np
import pytest

import pypto.language as pl

from .harness import BACKEND, check_kernel, default_pipeline

RNG = np.random.default_rng(1415)


def data(shape, dtype=np.float32):
    if np.issubdtype(dtype, np.integer):
        return RNG.integers(-9, 10, size=shape).astype(dtype)
    return RNG.uniform(-2.0, 2.0, size=shape).astype(dtype)


def zeros(shape, dtype=np.float32):
    return np.zeros(shape, dtype)


def padded(x, valid, shape, value):
    """x's valid region at the origin of a `shape` array filled with value (the fillpad formula)."""
    out = np.full(shape, value, dtype=x.dtype)
    r, c = valid
    out[:r, :c] = x[:r, :c]
    return out


# -- tile.tri --------------------------------------------------------------------------------------------------
def build_tri_mask(n, diag, upper):
    @pl.program
    class TriMask:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, x: pl.Tensor[[n, n], pl.FP32], out: pl.Out[pl.Tensor[[n, n], pl.FP32]]):
            t = pl.load(x, [0, 0], [n, n])
            m = pl.tri(diag, [n, n], dtype=pl.FP32, upper=upper)
            out = pl.store(pl.mul(t, m), [0, 0], out)
            return out
    return TriMask


@pytest.mark.parametrize("n, diag, upper", [(16, 0, False), (16, 1, True), (32, -3, False)])
def test_tri_masks_a_square(n, diag, upper):
    x = data((n, n))
    mask = np.triu(np.ones((n, n)), diag) if upper else np.tril(np.ones((n, n)), diag)
    check_kernel(build_tri_mask(n, diag, upper), {"x": x, "out": zeros((n, n))},
                 {"out": (x * mask).astype(np.float32)})


def build_causal_scores(n, neg):
    """Scores above the diagonal replaced by a large negative value: s * tri + (1 - tri) * neg."""
    @pl.program
    class CausalScores:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, s: pl.Tensor[[n, n], pl.FP32], out: pl.Out[pl.Tensor[[n, n], pl.FP32]]):
            t = pl.load(s, [0, 0], [n, n])
            keep = pl.tile.tri(0, [n, n], dtype=pl.FP32)
            drop = pl.tile.muls(pl.tile.adds(pl.tile.muls(keep, -1.0), 1.0), neg)
            out = pl.store(pl.tile.add(pl.tile.mul(t, keep), drop), [0, 0], out)
            return out
    return CausalScores


@pytest.mark.parametrize("n", [16, 32])
def test_tri_builds_a_causal_mask(n):
    s = data((n, n))
    keep = np.tril(np.ones((n, n), np.float32))
    check_kernel(build_causal_scores(n, -1e4), {"s": s, "out": zeros((n, n))},
                 {"out": (s * keep + (1 - keep) * np.float32(-1e4)).astype(np.float32)})


def build_tri_int_valid(n, vr):
    @pl.program
    class TriIntValid:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, out: pl.Out[pl.Tensor[[n, n], pl.INT32]]):
            m = pl.tile.tri(2, [n, n], [vr, n], dtype=pl.INT32, upper=True)
            out = pl.store(m, [0, 0], out)
            return out
    return TriIntValid


def test_tri_with_a_valid_shape_stores_only_its_rows():
    n, vr = 16, 6
    want = np.zeros((n, n), np.int32)
    want[:vr] = np.triu(np.ones((n, n), np.int32), 2)[:vr]
    check_kernel(build_tri_int_valid(n, vr), {"out": zeros((n, n), np.int32)}, {"out": want})


# -- concat ----------------------------------------------------------------------------------------------------
def build_tile_concat(rows, c0, c1):
    @pl.program
    class TileConcat:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, a: pl.Tensor[[rows, c0], pl.FP32], b: pl.Tensor[[rows, c1], pl.FP32],
                 out: pl.Out[pl.Tensor[[rows, c0 + c1], pl.FP32]]):
            ta = pl.load(a, [0, 0], [rows, c0])
            tb = pl.load(b, [0, 0], [rows, c1])
            out = pl.store(pl.concat(ta, tb), [0, 0], out)
            return out
    return TileConcat


@pytest.mark.parametrize("rows, c0, c1", [(16, 32, 32), (8, 16, 48)])
def test_tile_concat_joins_columns(rows, c0, c1):
    a, b = data((rows, c0)), data((rows, c1))
    check_kernel(build_tile_concat(rows, c0, c1), {"a": a, "b": b, "out": zeros((rows, c0 + c1))},
                 {"out": np.concatenate([a, b], axis=1)})


def build_tensor_concat_scaled(m, n0, n1, scale):
    @pl.program
    class TensorConcat:
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, a: pl.Tensor[[m, n0], pl.FP32], b: pl.Tensor[[m, n1], pl.FP32],
                 out: pl.Out[pl.Tensor[[m, n0 + n1], pl.FP32]]) -> pl.Tensor[[m, n0 + n1], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                c = pl.tensor.concat(a, pl.mul(b, scale))
                out = pl.assemble(out, c, [0, 0])
            return out
    return TensorConcat


@pytest.mark.parametrize("m, n0, n1", [(16, 64, 32), (32, 16, 16)])
def test_tensor_concat_of_a_computed_operand(m, n0, n1):
    a, b = data((m, n0)), data((m, n1))
    check_kernel(build_tensor_concat_scaled(m, n0, n1, 0.5), {"a": a, "b": b, "out": zeros((m, n0 + n1))},
                 {"out": np.hstack([a, b * np.float32(0.5)]).astype(np.float32)})


def build_concat_of_tris(n):
    @pl.program
    class ConcatTris:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, out: pl.Out[pl.Tensor[[n, 2 * n], pl.INT32]]):
            low = pl.tile.tri(0, [n, n])
            up = pl.tile.tri(1, [n, n], upper=True)
            out = pl.store(pl.tile.concat(low, up), [0, 0], out)
            return out
    return ConcatTris


def test_concat_of_two_triangles():
    n = 16
    want = np.hstack([np.tril(np.ones((n, n), np.int32)), np.triu(np.ones((n, n), np.int32), 1)])
    check_kernel(build_concat_of_tris(n), {"out": zeros((n, 2 * n), np.int32)}, {"out": want})


# -- tile fillpad ----------------------------------------------------------------------------------------------
def build_fillpad(rows, cols, valid, pad):
    vr, vc = valid

    @pl.program
    class FillPad:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, x: pl.Tensor[[rows, cols], pl.FP32], out: pl.Out[pl.Tensor[[rows, cols], pl.FP32]]):
            t = pl.load(x, [0, 0], [rows, cols], valid_shape=[vr, vc])
            out = pl.store(pl.fillpad(t, pad_value=pad), [0, 0], out)
            return out
    return FillPad


@pytest.mark.parametrize("valid, pad, value", [([10, 64], pl.PadValue.zero, 0.0), ([16, 40], pl.PadValue.max, np.inf),
                                               ([5, 7], pl.PadValue.min, -np.inf)])
def test_fillpad_fills_outside_the_valid_region(valid, pad, value):
    x = data((16, 64))
    check_kernel(build_fillpad(16, 64, valid, pad), {"x": x, "out": zeros((16, 64))},
                 {"out": padded(x, valid, (16, 64), value)})


def build_masked_row_max(rows, cols, vc):
    @pl.program
    class MaskedRowMax:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, x: pl.Tensor[[rows, cols], pl.FP32], out: pl.Out[pl.Tensor[[rows, 1], pl.FP32]]):
            t = pl.load(x, [0, 0], [rows, cols], valid_shape=[rows, vc])
            full = pl.tile.fillpad(t, pad_value=pl.PadValue.min)
            tmp = pl.tile.create([rows, cols], dtype=pl.FP32, target_memory=pl.Mem.Vec)
            out = pl.store(pl.tile.row_max(full, tmp), [0, 0], out)
            return out
    return MaskedRowMax


@pytest.mark.parametrize("vc", [20, 63])
def test_fillpad_min_then_row_max_is_the_max_of_the_valid_columns(vc):
    x = data((16, 64))
    check_kernel(build_masked_row_max(16, 64, vc), {"x": x, "out": zeros((16, 1))},
                 {"out": x[:, :vc].max(axis=1, keepdims=True)})


def build_fillpad_expand(rows, cols, big, pad):
    br, bc = big

    @pl.program
    class FillPadExpand:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, x: pl.Tensor[[rows, cols], pl.FP32], out: pl.Out[pl.Tensor[[br, bc], pl.FP32]]):
            t = pl.load(x, [0, 0], [rows, cols])
            out = pl.store(pl.tile.fillpad_expand(t, [br, bc], pad_value=pad), [0, 0], out)
            return out
    return FillPadExpand


@pytest.mark.parametrize("big, pad, value", [([16, 64], pl.PadValue.zero, 0.0), ([32, 32], pl.PadValue.max, np.inf)])
def test_fillpad_expand_grows_the_tile(big, pad, value):
    x = data((12, 30))
    check_kernel(build_fillpad_expand(12, 30, big, pad), {"x": x, "out": zeros(tuple(big))},
                 {"out": padded(x, (12, 30), tuple(big), value)})


def build_fillpad_expand_partial(rows, cols, vr, big):
    @pl.program
    class FillPadExpandPartial:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, x: pl.Tensor[[rows, cols], pl.FP32], out: pl.Out[pl.Tensor[[big, cols], pl.FP32]]):
            t = pl.load(x, [0, 0], [rows, cols], valid_shape=[vr, cols])
            out = pl.store(pl.fillpad_expand(t, [big, cols]), [0, 0], out)
            return out
    return FillPadExpandPartial


def test_fillpad_expand_of_a_partly_valid_tile():
    x = data((16, 32))
    check_kernel(build_fillpad_expand_partial(16, 32, 9, 32), {"x": x, "out": zeros((32, 32))},
                 {"out": padded(x, (9, 32), (32, 32), 0.0)})


def build_fillpad_inplace_sum(rows, cols, vr):
    @pl.program
    class FillPadInplace:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, x: pl.Tensor[[rows, cols], pl.FP32], y: pl.Tensor[[rows, cols], pl.FP32],
                 out: pl.Out[pl.Tensor[[rows, cols], pl.FP32]]):
            t = pl.load(x, [0, 0], [rows, cols], valid_shape=[vr, cols])
            f = pl.tile.fillpad_inplace(t)
            out = pl.store(pl.add(f, pl.load(y, [0, 0], [rows, cols])), [0, 0], out)
            return out
    return FillPadInplace


@pytest.mark.parametrize("vr", [4, 15])
def test_fillpad_inplace_then_add(vr):
    x, y = data((16, 32)), data((16, 32))
    check_kernel(build_fillpad_inplace_sum(16, 32, vr), {"x": x, "y": y, "out": zeros((16, 32))},
                 {"out": padded(x, (vr, 32), (16, 32), 0.0) + y})


def build_set_validshape_fillpad(rows, cols, vr, vc):
    @pl.program
    class SetValidFill:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, x: pl.Tensor[[rows, cols], pl.FP32], out: pl.Out[pl.Tensor[[rows, cols], pl.FP32]]):
            t = pl.load(x, [0, 0], [rows, cols])
            p = pl.set_validshape(t, vr, vc)
            out = pl.store(pl.tile.fillpad(p, pad_value=pl.PadValue.zero), [0, 0], out)
            return out
    return SetValidFill


def test_tile_set_validshape_then_fillpad():
    x = data((16, 64))
    check_kernel(build_set_validshape_fillpad(16, 64, 7, 33), {"x": x, "out": zeros((16, 64))},
                 {"out": padded(x, (7, 33), (16, 64), 0.0)})


# -- tensor fillpad / set_validshape -----------------------------------------------------------------------------
def build_tensor_fillpad(m, n, vr, pad):
    @pl.program
    class TensorFillPad:
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, x: pl.Tensor[[m, n], pl.FP32], out: pl.Out[pl.Tensor[[m, n], pl.FP32]]) -> \
                pl.Tensor[[m, n], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                part = pl.tensor.set_validshape(x, vr, n)
                full = pl.tensor.fillpad(part, pad_value=pad)
                out = pl.assemble(out, pl.add(full, 1.0), [0, 0])
            return out
    return TensorFillPad


@pytest.mark.parametrize("vr, pad, value", [(8, pl.PadValue.zero, 0.0), (3, pl.PadValue.max, np.inf)])
def test_tensor_fillpad_of_a_narrowed_tensor(vr, pad, value):
    x = data((16, 32))
    check_kernel(build_tensor_fillpad(16, 32, vr, pad), {"x": x, "out": zeros((16, 32))},
                 {"out": padded(x, (vr, 32), (16, 32), value) + np.float32(1)})


def build_tensor_fillpad_expand(m, n, bm, bn):
    @pl.program
    class TensorFillPadExpand:
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, x: pl.Tensor[[m, n], pl.FP32], out: pl.Out[pl.Tensor[[bm, bn], pl.FP32]]) -> \
                pl.Tensor[[bm, bn], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                big = pl.fillpad_expand(pl.mul(x, 2.0), [bm, bn], pad_value=pl.PadValue.min)
                out = pl.assemble(out, big, [0, 0])
            return out
    return TensorFillPadExpand


@pytest.mark.parametrize("bm, bn", [(16, 64), (32, 48)])
def test_tensor_fillpad_expand(bm, bn):
    x = data((16, 48))
    check_kernel(build_tensor_fillpad_expand(16, 48, bm, bn), {"x": x, "out": zeros((bm, bn))},
                 {"out": padded(x * np.float32(2), (16, 48), (bm, bn), -np.inf)})


def build_store_valid_rows(m, n, vr):
    @pl.program
    class StoreValidRows:
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, x: pl.Tensor[[m, n], pl.FP32], out: pl.Out[pl.Tensor[[m, n], pl.FP32]]) -> \
                pl.Tensor[[m, n], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                y = pl.tensor.set_validshape(pl.exp(x), vr, n)
                out = pl.assemble(out, pl.fillpad(y), [0, 0])
            return out
    return StoreValidRows


@pytest.mark.parametrize("vr", [1, 12])
def test_tensor_set_validshape_of_a_computed_tensor(vr):
    x = data((16, 32))
    check_kernel(build_store_valid_rows(16, 32, vr), {"x": x, "out": zeros((16, 32))},
                 {"out": padded(np.exp(x).astype(np.float32), (vr, 32), (16, 32), 0.0)})


# -- tensor.view --------------------------------------------------------------------------------------------------
def build_view_reshape(m, n, vm, vn):
    @pl.program
    class ViewReshape:
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, x: pl.Tensor[[m, n], pl.FP32], y: pl.Tensor[[vm, vn], pl.FP32],
                 out: pl.Out[pl.Tensor[[vm, vn], pl.FP32]]) -> pl.Tensor[[vm, vn], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                v = pl.tensor.view(x, [vm, vn])
                out = pl.assemble(out, pl.add(v, y), [0, 0])
            return out
    return ViewReshape


@pytest.mark.parametrize("m, n, vm, vn", [(16, 64, 32, 32), (8, 128, 64, 16)])
def test_tensor_view_with_a_new_shape(m, n, vm, vn):
    x, y = data((m, n)), data((vm, vn))
    check_kernel(build_view_reshape(m, n, vm, vn), {"x": x, "y": y, "out": zeros((vm, vn))},
                 {"out": x.reshape(vm, vn) + y})


def build_view_dn(m, n):
    @pl.program
    class ViewDn:
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, x: pl.Tensor[[m, n], pl.FP32], out: pl.Out[pl.Tensor[[n, m], pl.FP32]]) -> \
                pl.Tensor[[n, m], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.tensor.view(x, layout=pl.TensorLayout.DN)
                out = pl.assemble(out, pl.mul(t, 3.0), [0, 0])
            return out
    return ViewDn


def test_tensor_view_dn_reads_the_transpose():
    x = data((16, 32))
    check_kernel(build_view_dn(16, 32), {"x": x, "out": zeros((32, 16))}, {"out": (x.T * np.float32(3))})


def build_view_collapse(b, m, n):
    @pl.program
    class ViewCollapse:
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, x: pl.Tensor[[b, m, n], pl.FP32], out: pl.Out[pl.Tensor[[b * m, n], pl.FP32]]) -> \
                pl.Tensor[[b * m, n], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                flat = pl.tensor.view(x, [b * m, n])
                out = pl.assemble(out, pl.neg(flat), [0, 0])
            return out
    return ViewCollapse


def test_tensor_view_collapses_leading_axes():
    x = data((2, 8, 32))
    check_kernel(build_view_collapse(2, 8, 32), {"x": x, "out": zeros((16, 32))}, {"out": -x.reshape(16, 32)})


# -- generators -----------------------------------------------------------------------------------------------------
def build_arange(n, start, descending, dtype):
    @pl.program
    class Arange:
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, out: pl.Out[pl.Tensor[[1, n], dtype]]) -> pl.Tensor[[1, n], dtype]:
            with pl.at(level=pl.Level.CORE_GROUP):
                idx = pl.tensor.ci(start, [1, n], dtype=dtype, descending=descending)
                out = pl.assemble(out, idx, [0, 0])
            return out
    return Arange


@pytest.mark.parametrize("start, descending, dtype, np_dtype", [(0, False, pl.INT32, np.int32),
                                                                  (100, True, pl.INT32, np.int32),
                                                                  (3, False, pl.INT16, np.int16)])
def test_tensor_ci(start, descending, dtype, np_dtype):
    n = 64
    step = -1 if descending else 1
    want = (start + step * np.arange(n)).reshape(1, n).astype(np_dtype)
    check_kernel(build_arange(n, start, descending, dtype), {"out": zeros((1, n), np_dtype)}, {"out": want})


def build_arange_offsets(n, base):
    @pl.program
    class ArangeOffsets:
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, x: pl.Tensor[[1, n], pl.INT32], out: pl.Out[pl.Tensor[[1, n], pl.INT32]]) -> \
                pl.Tensor[[1, n], pl.INT32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                idx = pl.arange(base, [1, n])
                out = pl.assemble(out, pl.add(idx, x), [0, 0])
            return out
    return ArangeOffsets


def test_arange_plus_offsets():
    x = data((1, 32), np.int32)
    check_kernel(build_arange_offsets(32, 10), {"x": x, "out": zeros((1, 32), np.int32)},
                 {"out": (10 + np.arange(32, dtype=np.int32)).reshape(1, 32) + x})


_M0, _M1, _W0, _W1 = 0xD2511F53, 0xCD9E8D57, 0x9E3779B9, 0xBB67AE85


def philox(key, counter, rounds):
    """Philox4x32 of one 128-bit counter block, in Python ints (the reference formula)."""
    c, (k0, k1) = list(counter), key
    for _ in range(rounds):
        p0, p1 = _M0 * c[0], _M1 * c[2]
        c = [((p1 >> 32) ^ c[1] ^ k0) & 0xFFFFFFFF, p1 & 0xFFFFFFFF, ((p0 >> 32) ^ c[3] ^ k1) & 0xFFFFFFFF,
             p0 & 0xFFFFFFFF]
        k0, k1 = (k0 + _W0) & 0xFFFFFFFF, (k1 + _W1) & 0xFFFFFFFF
    return c


def philox_words(key, counter, rounds, n):
    words, block = [], 0
    while len(words) < n:
        low = (counter[0] | counter[1] << 32) + block
        words += philox(key, [low & 0xFFFFFFFF, low >> 32 & 0xFFFFFFFF, counter[2], counter[3]], rounds)
        block += 1
    return np.array(words[:n], dtype=np.uint32)


def build_random(rows, cols, key, ctr, rounds):
    k0, k1 = key
    c0, c1, c2, c3 = ctr

    @pl.program
    class Random:
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, out: pl.Out[pl.Tensor[[rows, cols], pl.UINT32]]) -> pl.Tensor[[rows, cols], pl.UINT32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                r = pl.random(k0, k1, c0, c1, c2, c3, [rows, cols], rounds=rounds)
                out = pl.assemble(out, r, [0, 0])
            return out
    return Random


@pytest.mark.parametrize("key, ctr, rounds", [((1, 2), (0, 0, 0, 0), 10), ((7, 99), (5, 0, 3, 4), 7)])
def test_tensor_random_is_philox(key, ctr, rounds):
    rows, cols = 4, 32
    want = philox_words(key, ctr, rounds, rows * cols).reshape(rows, cols)
    check_kernel(build_random(rows, cols, key, ctr, rounds), {"out": zeros((rows, cols), np.uint32)}, {"out": want})


# -- allocation ------------------------------------------------------------------------------------------------------
def build_tile_alloc(rows, cols, size):
    @pl.program
    class TileAlloc:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, x: pl.Tensor[[rows, cols], pl.FP32], out: pl.Out[pl.Tensor[[rows, cols], pl.FP32]]):
            buf = pl.tile.alloc(pl.Mem.Vec, size)
            t = pl.load(x, [0, 0], [rows, cols])
            out = pl.store(pl.tile.muls(t, 2.0), [0, 0], out)
            return out
    return TileAlloc


def test_tile_alloc_declares_a_buffer():
    x = data((16, 32))
    check_kernel(build_tile_alloc(16, 32, 16 * 32 * 4), {"x": x, "out": zeros((16, 32))}, {"out": x * 2})


def build_tensor_alloc(m, n):
    @pl.program
    class TensorAlloc:
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, x: pl.Tensor[[m, n], pl.FP32], out: pl.Out[pl.Tensor[[m, n], pl.FP32]]) -> \
                pl.Tensor[[m, n], pl.FP32]:
            ptr = pl.tensor.alloc(pl.Mem.DDR, m * n * 4)
            with pl.at(level=pl.Level.CORE_GROUP):
                out = pl.assemble(out, pl.sub(x, 1.0), [0, 0])
            return out
    return TensorAlloc


def test_tensor_alloc_declares_a_gm_buffer():
    x = data((16, 32))
    check_kernel(build_tensor_alloc(16, 32), {"x": x, "out": zeros((16, 32))}, {"out": x - np.float32(1)})


def build_create_l1(m, k, n):
    @pl.program
    class CreateL1:
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, a: pl.Tensor[[m, k], pl.FP32], b: pl.Tensor[[k, n], pl.FP32],
                 out: pl.Out[pl.Tensor[[m, n], pl.FP32]]) -> pl.Tensor[[m, n], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                staged = pl.create_l1([m, k], pl.FP32)
                staged = pl.assemble(staged, pl.slice(a, [m, k], [0, 0]), [0, 0])
                out = pl.assemble(out, pl.matmul(staged, b), [0, 0])
            return out
    return CreateL1


def test_create_l1_stages_a_matmul_operand():
    a, b = data((16, 32)), data((32, 16))
    # compile=False: InferTileMemorySpace places the window loaded for the assemble into the L1 tile in Vec
    # (tile.assemble declares no operand space: docs/reference/ops.md), so ExpandMixedKernel finds a vector value read by the
    # cube; placing an assemble's source in its target's space is a pass_tile change.
    check_kernel(build_create_l1(16, 32, 16), {"a": a, "b": b, "out": zeros((16, 16))},
                 {"out": (a.astype(np.float64) @ b).astype(np.float32)}, compile=False)


# -- matmul_acc into a window of an Acc tile ------------------------------------------------------------------------
def build_acc_window(m, k, n, row):
    half = m // 2

    @pl.program
    class AccWindow:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, a: pl.Tensor[[m, k], pl.FP32], b: pl.Tensor[[k, n], pl.FP32],
                 out: pl.Out[pl.Tensor[[m, n], pl.FP32]]) -> pl.Tensor[[m, n], pl.FP32]:
            am = pl.load(a, [0, 0], [m, k], target_memory=pl.Mem.Mat)
            bm = pl.load(b, [0, 0], [k, n], target_memory=pl.Mem.Mat)
            acc = pl.matmul(pl.move(am, target_memory=pl.Mem.Left), pl.move(bm, target_memory=pl.Mem.Right))
            a1 = pl.load(a, [row, 0], [half, k], target_memory=pl.Mem.Mat)
            win = pl.tile.slice(acc, [half, n], [row, 0])
            win = pl.matmul_acc(win, pl.move(a1, target_memory=pl.Mem.Left), pl.move(bm, target_memory=pl.Mem.Right))
            out = pl.store(acc, [0, 0], out)
            return out
    return AccWindow


@pytest.mark.parametrize("m, k, n, row", [(32, 32, 64, 16), (32, 16, 32, 0)])
def test_matmul_acc_into_an_acc_window_writes_the_parent(m, k, n, row):
    a, b = data((m, k)), data((k, n))
    want = a.astype(np.float64) @ b
    want[row:row + m // 2] += a[row:row + m // 2].astype(np.float64) @ b
    # The machine runs the program as written; the default pipeline refuses it: a row window of an Acc tile is
    # not contiguous in L0C, so the cube cannot accumulate into it (docs/passes/canonicalize_tile_slice.md).
    program = build_acc_window(m, k, n, row)
    check_kernel(program, {"a": a, "b": b, "out": zeros((m, n))}, {"out": want.astype(np.float32)}, compile=False)
    with pytest.raises(ValueError, match=r"row window of a \d+x\d+ Acc \(L0C\) tile, which is not contiguous"):
        default_pipeline(BACKEND).run(program)

"""PyPTO-style kernels of the element-wise family: the three-operand adds (addc / subc / addsc /
subsc), fmod(s), the partial ops, prelu / lrelu, expands, PyPTO's names (maximums / minimums, tensor.maximum
with a scalar, tensor.cmp), the packed cmp -> sel / sels masks and high_precision. Each kernel is built by a
parametrised builder whose closure values the DSL reads, checked against a numpy formula written here, as
written and after the default pipeline."""

from __future__ import annotations

import numpy as np
import pytest

import pypto.language as pl

from .harness import check_kernel

RNG = np.random.default_rng(1401)


def data(shape, low=-2.0, high=2.0, dtype=np.float32):
    if np.issubdtype(dtype, np.integer):
        return RNG.integers(-20, 21, size=shape).astype(dtype)
    return RNG.uniform(low, high, size=shape).astype(dtype)


def f64(x):
    return np.asarray(x, dtype=np.float64)


NP = {pl.FP32: np.float32, pl.FP16: np.float16, pl.INT32: np.int32, pl.INT16: np.int16}


# -- tile kernels: load, compute, store -------------------------------------------------------------------
def build_tile3(shape, dtype, chain):
    """A tile kernel over three inputs; `chain` picks one of two fixed op chains (a Python str read
    outside the body: the DSL's `if` reads the bool)."""
    m, n = shape
    gated = chain == "gated"

    @pl.program
    class Tile3:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, a: pl.Tensor[[m, n], dtype], b: pl.Tensor[[m, n], dtype], c: pl.Tensor[[m, n], dtype],
                 out: pl.Out[pl.Tensor[[m, n], dtype]]) -> pl.Tensor[[m, n], dtype]:
            x = pl.load(a, [0, 0], [m, n])
            y = pl.load(b, [0, 0], [m, n])
            z = pl.load(c, [0, 0], [m, n])
            if gated:
                r = pl.tile.fmods(pl.lrelu(pl.addc(x, y, z), 0.1), 1.5)
            else:
                r = pl.tile.part_min(pl.tile.subsc(x, 0.5, z), pl.tile.expands(y, 1.0))
            out = pl.store(r, [0, 0], out)
            return out
    return Tile3


def run3(shape, dtype, chain, formula, inputs=None):
    a, b, c = inputs or tuple(data(tuple(shape), dtype=NP[dtype]) for _ in range(3))
    want = np.asarray(formula(f64(a), f64(b), f64(c))).astype(NP[dtype])
    check_kernel(build_tile3(shape, dtype, chain), {"a": a, "b": b, "c": c, "out": np.zeros(shape, NP[dtype])},
                 {"out": want})


def build_addc(shape, dtype=pl.FP32):
    m, n = shape

    @pl.program
    class AddC:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, a: pl.Tensor[[m, n], dtype], b: pl.Tensor[[m, n], dtype], c: pl.Tensor[[m, n], dtype],
                 out: pl.Out[pl.Tensor[[m, n], dtype]]) -> pl.Tensor[[m, n], dtype]:
            x = pl.load(a, [0, 0], [m, n])
            y = pl.load(b, [0, 0], [m, n])
            z = pl.load(c, [0, 0], [m, n])
            r = pl.tile.addc(x, y, z)
            out = pl.store(r, [0, 0], out)
            return out
    return AddC


@pytest.mark.parametrize("shape", [[16, 64], [8, 128]])
def test_addc_sums_three_tiles(shape):
    a, b, c = (data(tuple(shape)) for _ in range(3))
    check_kernel(build_addc(shape), {"a": a, "b": b, "c": c, "out": np.zeros(shape, np.float32)},
                 {"out": (f64(a) + f64(b) + f64(c)).astype(np.float32)})


def build_subc(shape):
    m, n = shape

    @pl.program
    class SubC:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, a: pl.Tensor[[m, n], pl.FP32], b: pl.Tensor[[m, n], pl.FP32], c: pl.Tensor[[m, n], pl.FP32],
                 out: pl.Out[pl.Tensor[[m, n], pl.FP32]]) -> pl.Tensor[[m, n], pl.FP32]:
            x = pl.load(a, [0, 0], [m, n])
            y = pl.load(b, [0, 0], [m, n])
            z = pl.load(c, [0, 0], [m, n])
            r = pl.subc(x, y, z)
            out = pl.store(r, [0, 0], out)
            return out
    return SubC


def test_subc_is_a_minus_b_plus_c():
    shape = [16, 32]
    a, b, c = (data(tuple(shape)) for _ in range(3))
    check_kernel(build_subc(shape), {"a": a, "b": b, "c": c, "out": np.zeros(shape, np.float32)},
                 {"out": (f64(a) - f64(b) + f64(c)).astype(np.float32)})


def build_addsc_subsc(shape, s, subtract):
    m, n = shape

    @pl.program
    class AddScSubSc:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, a: pl.Tensor[[m, n], pl.FP32], c: pl.Tensor[[m, n], pl.FP32],
                 out: pl.Out[pl.Tensor[[m, n], pl.FP32]]) -> pl.Tensor[[m, n], pl.FP32]:
            x = pl.load(a, [0, 0], [m, n])
            z = pl.load(c, [0, 0], [m, n])
            if subtract:
                r = pl.tile.subsc(x, s, z)
            else:
                r = pl.tile.addsc(x, s, z)
            out = pl.store(r, [0, 0], out)
            return out
    return AddScSubSc


@pytest.mark.parametrize("s,subtract", [(1.5, False), (0.25, True), (-3.0, True)])
def test_addsc_and_subsc(s, subtract):
    shape = [8, 64]
    a, c = data((8, 64)), data((8, 64))
    want = (f64(a) - s + f64(c)) if subtract else (f64(a) + s + f64(c))
    check_kernel(build_addsc_subsc(shape, s, subtract), {"a": a, "c": c, "out": np.zeros(shape, np.float32)},
                 {"out": want.astype(np.float32)})


def build_fmod_tiles(shape, dtype, divisor):
    m, n = shape

    @pl.program
    class FmodTiles:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, a: pl.Tensor[[m, n], dtype], b: pl.Tensor[[m, n], dtype],
                 out: pl.Out[pl.Tensor[[m, n], dtype]], outs: pl.Out[pl.Tensor[[m, n], dtype]]):
            x = pl.load(a, [0, 0], [m, n])
            y = pl.load(b, [0, 0], [m, n])
            r = pl.fmod(x, y)
            q = pl.tile.fmods(x, divisor)
            out = pl.store(r, [0, 0], out)
            outs = pl.store(q, [0, 0], outs)
    return FmodTiles


@pytest.mark.parametrize("dtype,divisor", [(pl.FP32, 0.75), (pl.INT32, 7), (pl.INT16, 3)])
def test_fmod_truncates_toward_zero(dtype, divisor):
    shape = [8, 32]
    npd = NP[dtype]
    a = data((8, 32), -9.0, 9.0, npd)
    b = data((8, 32), 0.5, 3.0, npd) if npd == np.float32 else RNG.choice([-5, -3, 2, 4, 6], (8, 32)).astype(npd)
    want_t = np.fmod(f64(a), f64(b)).astype(npd)
    want_s = np.fmod(f64(a), f64(divisor)).astype(npd)
    check_kernel(build_fmod_tiles(shape, dtype, divisor),
                 {"a": a, "b": b, "out": np.zeros(shape, npd), "outs": np.zeros(shape, npd)},
                 {"out": want_t, "outs": want_s})


def build_part(shape, valid_cols, which):
    m, n = shape
    add, mx, mn = which == "add", which == "max", which == "min"  # Python bools the DSL's `if` reads

    @pl.program
    class Part:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, a: pl.Tensor[[m, n], pl.FP32], b: pl.Tensor[[m, n], pl.FP32],
                 out: pl.Out[pl.Tensor[[m, n], pl.FP32]]) -> pl.Tensor[[m, n], pl.FP32]:
            x = pl.load(a, [0, 0], [m, n])
            y = pl.load(b, [0, 0], [m, n], valid_shape=[m, valid_cols])
            if add:
                r = pl.tile.part_add(x, y)
            elif mx:
                r = pl.tile.part_max(x, y)
            elif mn:
                r = pl.tile.part_min(x, y)
            else:
                r = pl.tile.part_mul(x, y)
            out = pl.store(r, [0, 0], out)
            return out
    return Part


PART_NP = {"add": np.add, "max": np.maximum, "min": np.minimum, "mul": np.multiply}


@pytest.mark.parametrize("which", sorted(PART_NP))
def test_part_ops_keep_src0_where_src1_is_not_valid(which):
    shape, valid = [16, 64], 40
    a, b = data((16, 64)), data((16, 64))
    want = f64(a).copy()
    want[:, :valid] = PART_NP[which](f64(a)[:, :valid], f64(b)[:, :valid])
    check_kernel(build_part(shape, valid, which), {"a": a, "b": b, "out": np.zeros(shape, np.float32)},
                 {"out": want.astype(np.float32)})


def build_prelu(shape, dtype):
    m, n = shape

    @pl.program
    class PRelu:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, a: pl.Tensor[[m, n], dtype], s: pl.Tensor[[m, n], dtype],
                 out: pl.Out[pl.Tensor[[m, n], dtype]]) -> pl.Tensor[[m, n], dtype]:
            x = pl.load(a, [0, 0], [m, n])
            slope = pl.load(s, [0, 0], [m, n])
            tmp = pl.tile.create([m, n], dtype=dtype, target_memory=pl.Mem.Vec)
            r = pl.prelu(x, slope, tmp)
            out = pl.store(r, [0, 0], out)
            return out
    return PRelu


@pytest.mark.parametrize("dtype", [pl.FP32, pl.FP16])
def test_prelu_scales_the_negative_part(dtype):
    shape = [16, 64]
    npd = NP[dtype]
    a, s = data((16, 64), dtype=npd), data((16, 64), 0.0, 0.5, npd)
    want = np.where(f64(a) > 0, f64(a), f64(a) * f64(s)).astype(npd)
    check_kernel(build_prelu(shape, dtype), {"a": a, "s": s, "out": np.zeros(shape, npd)}, {"out": want})


def build_lrelu(shape, slope):
    m, n = shape

    @pl.program
    class LRelu:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, a: pl.Tensor[[m, n], pl.FP32], out: pl.Out[pl.Tensor[[m, n], pl.FP32]]) -> pl.Tensor[[m, n], pl.FP32]:
            x = pl.load(a, [0, 0], [m, n])
            r = pl.tile.lrelu(x, slope)
            out = pl.store(r, [0, 0], out)
            return out
    return LRelu


@pytest.mark.parametrize("slope", [0.01, 0.2])
def test_lrelu_with_a_scalar_slope(slope):
    a = data((8, 64))
    want = np.where(a > 0, a, a * np.float32(slope)).astype(np.float32)
    check_kernel(build_lrelu([8, 64], slope), {"a": a, "out": np.zeros((8, 64), np.float32)}, {"out": want})


def build_expands_bias(shape, value):
    m, n = shape

    @pl.program
    class ExpandsBias:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, a: pl.Tensor[[m, n], pl.FP32], out: pl.Out[pl.Tensor[[m, n], pl.FP32]]) -> pl.Tensor[[m, n], pl.FP32]:
            x = pl.load(a, [0, 0], [m, n])
            filled = pl.tile.expands(x, value)
            r = pl.add(x, filled)
            out = pl.store(r, [0, 0], out)
            return out
    return ExpandsBias


def test_expands_fills_the_target_shape():
    a = data((16, 32))
    check_kernel(build_expands_bias([16, 32], 3.5), {"a": a, "out": np.zeros((16, 32), np.float32)},
                 {"out": (f64(a) + 3.5).astype(np.float32)})


def build_clamp(shape, lo, hi):
    m, n = shape

    @pl.program
    class Clamp:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, a: pl.Tensor[[m, n], pl.FP32], out: pl.Out[pl.Tensor[[m, n], pl.FP32]]) -> pl.Tensor[[m, n], pl.FP32]:
            x = pl.load(a, [0, 0], [m, n])
            up = pl.tile.maximums(x, lo)
            r = pl.tile.minimums(up, hi)
            out = pl.store(r, [0, 0], out)
            return out
    return Clamp


@pytest.mark.parametrize("lo,hi", [(-0.5, 0.5), (0.0, 1.0)])
def test_clamp_with_maximums_and_minimums(lo, hi):
    a = data((16, 64))
    check_kernel(build_clamp([16, 64], lo, hi), {"a": a, "out": np.zeros((16, 64), np.float32)},
                 {"out": np.clip(a, np.float32(lo), np.float32(hi))})


def build_old_spellings(shape, lo):
    """pypto's `pl.maxs` / `pl.tile.mins` still build PyPTO's ops."""
    m, n = shape

    @pl.program
    class OldSpellings:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, a: pl.Tensor[[m, n], pl.FP32], out: pl.Out[pl.Tensor[[m, n], pl.FP32]]) -> pl.Tensor[[m, n], pl.FP32]:
            x = pl.load(a, [0, 0], [m, n])
            r = pl.tile.mins(pl.maxs(x, lo), 1.0)
            out = pl.store(r, [0, 0], out)
            return out
    return OldSpellings


def test_old_max_min_spellings_alias_pyptos_ops():
    a = data((8, 32))
    check_kernel(build_old_spellings([8, 32], -1.0), {"a": a, "out": np.zeros((8, 32), np.float32)},
                 {"out": np.clip(a, -1.0, 1.0).astype(np.float32)})


# -- packed masks: cmp -> sel / sels ---------------------------------------------------------------------
def build_select(shape, cmp_type):
    m, n = shape

    @pl.program
    class Select:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, a: pl.Tensor[[m, n], pl.FP32], b: pl.Tensor[[m, n], pl.FP32],
                 out: pl.Out[pl.Tensor[[m, n], pl.FP32]]) -> pl.Tensor[[m, n], pl.FP32]:
            x = pl.load(a, [0, 0], [m, n])
            y = pl.load(b, [0, 0], [m, n])
            mask = pl.cmp(x, y, cmp_type=cmp_type)
            tmp = pl.tile.create([1, 32], dtype=pl.UINT8, target_memory=pl.Mem.Vec)
            r = pl.sel(mask, x, y, tmp)
            out = pl.store(r, [0, 0], out)
            return out
    return Select


CMP_NP = [np.equal, np.not_equal, np.less, np.less_equal, np.greater, np.greater_equal]


@pytest.mark.parametrize("cmp_type", range(6))
@pytest.mark.parametrize("shape", [[16, 64], [8, 40]])
def test_cmp_then_sel_picks_per_element(shape, cmp_type):
    a = RNG.integers(-3, 4, tuple(shape)).astype(np.float32)  # small integers: equality happens
    b = RNG.integers(-3, 4, tuple(shape)).astype(np.float32)
    check_kernel(build_select(shape, cmp_type), {"a": a, "b": b, "out": np.zeros(shape, np.float32)},
                 {"out": np.where(CMP_NP[cmp_type](a, b), a, b)})


def build_sels_threshold(shape, threshold, fill):
    m, n = shape

    @pl.program
    class SelsThreshold:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, a: pl.Tensor[[m, n], pl.FP32], out: pl.Out[pl.Tensor[[m, n], pl.FP32]]) -> pl.Tensor[[m, n], pl.FP32]:
            x = pl.load(a, [0, 0], [m, n])
            mask = pl.tile.cmps(x, threshold, cmp_type=5)
            tmp = pl.tile.create([1, 32], dtype=pl.UINT8, target_memory=pl.Mem.Vec)
            r = pl.tile.sels(mask, x, tmp, fill)
            out = pl.store(r, [0, 0], out)
            return out
    return SelsThreshold


@pytest.mark.parametrize("threshold,fill", [(0.0, -1.0), (0.5, 0.0)])
def test_sels_masks_below_a_threshold(threshold, fill):
    a = data((16, 128))
    check_kernel(build_sels_threshold([16, 128], threshold, fill), {"a": a, "out": np.zeros((16, 128), np.float32)},
                 {"out": np.where(a >= np.float32(threshold), a, np.float32(fill))})


def build_sels_int16_mask(shape, mask_cols, fill):
    """A mask handed in as INT16 words (another carrier dtype)."""
    m, n = shape

    @pl.program
    class SelsInt16Mask:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, k: pl.Tensor[[m, mask_cols], pl.INT16], a: pl.Tensor[[m, n], pl.FP32],
                 out: pl.Out[pl.Tensor[[m, n], pl.FP32]]) -> pl.Tensor[[m, n], pl.FP32]:
            mask = pl.load(k, [0, 0], [m, mask_cols])
            x = pl.load(a, [0, 0], [m, n])
            tmp = pl.tile.create([1, 32], dtype=pl.UINT8, target_memory=pl.Mem.Vec)
            r = pl.tile.sels(mask, x, tmp, fill)
            out = pl.store(r, [0, 0], out)
            return out
    return SelsInt16Mask


def _bits_of_words(words: np.ndarray, n: int) -> np.ndarray:
    """Element i of a row is bit i % 8 of byte i // 8 of the row's little-endian bytes."""
    out = np.zeros((words.shape[0], n), bool)
    for r in range(words.shape[0]):
        raw = words[r].astype("<u2").tobytes()
        for i in range(n):
            out[r, i] = (raw[i // 8] >> (i % 8)) & 1
    return out


@pytest.mark.parametrize("n", [64, 128])
def test_sels_reads_an_int16_carrier_as_packed_bits(n):
    cols = 16  # 32 bytes per row: PyPTO's packed row width
    k = RNG.integers(-32768, 32768, (8, cols)).astype(np.int16)
    a = data((8, n))
    check_kernel(build_sels_int16_mask([8, n], cols, 9.0), {"k": k, "a": a, "out": np.zeros((8, n), np.float32)},
                 {"out": np.where(_bits_of_words(k, n), a, np.float32(9.0))})


def build_mask_reinterpreted(shape):
    """cmp's UINT8 mask viewed as INT32 words before sels reads it."""
    m, n = shape

    @pl.program
    class MaskReinterpreted:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, a: pl.Tensor[[m, n], pl.FP32], b: pl.Tensor[[m, n], pl.FP32],
                 out: pl.Out[pl.Tensor[[m, n], pl.FP32]]) -> pl.Tensor[[m, n], pl.FP32]:
            x = pl.load(a, [0, 0], [m, n])
            y = pl.load(b, [0, 0], [m, n])
            mask = pl.tile.cmp(x, y, cmp_type=4)
            words = pl.tile.reinterpret_view(mask, pl.INT32)
            tmp = pl.tile.create([1, 32], dtype=pl.UINT8, target_memory=pl.Mem.Vec)
            r = pl.tile.sels(words, y, tmp, 0.0)
            out = pl.store(r, [0, 0], out)
            return out
    return MaskReinterpreted


def test_a_reinterpreted_mask_selects_the_same_elements():
    a, b = data((8, 128)), data((8, 128))
    check_kernel(build_mask_reinterpreted([8, 128]), {"a": a, "b": b, "out": np.zeros((8, 128), np.float32)},
                 {"out": np.where(a > b, b, np.float32(0.0))})


def build_split_select(shape, mode):
    """cmp / sel inside a split kernel: LowerAutoVectorSplit halves the packed mask with its operands."""
    m, n = shape

    @pl.program
    class SplitSelect:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, a: pl.Tensor[[m, n], pl.FP32], b: pl.Tensor[[m, n], pl.FP32],
                 out: pl.Out[pl.Tensor[[m, n], pl.FP32]]) -> pl.Tensor[[m, n], pl.FP32]:
            pl.func_attr({"split": mode})
            x = pl.load(a, [0, 0], [m, n])
            y = pl.load(b, [0, 0], [m, n])
            mask = pl.tile.cmp(x, y, cmp_type=2)
            tmp = pl.tile.create([1, 32], dtype=pl.UINT8, target_memory=pl.Mem.Vec)
            r = pl.tile.sel(mask, y, x, tmp)
            out = pl.store(r, [0, 0], out)
            return out
    return SplitSelect


@pytest.mark.parametrize("mode", [pl.SplitMode.UP_DOWN, pl.SplitMode.LEFT_RIGHT])
def test_a_split_kernel_selects_with_its_lane_mask(mode):
    a, b = data((16, 128)), data((16, 128))
    check_kernel(build_split_select([16, 128], mode), {"a": a, "b": b, "out": np.zeros((16, 128), np.float32)},
                 {"out": np.maximum(a, b)})


# -- tensor kernels: lowered by ConvertTensorToTileOps ---------------------------------------------------
def build_tensor_fmod(shape, divisor):
    m, n = shape

    @pl.program
    class TensorFmod:
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, x: pl.Tensor[[m, n], pl.FP32], y: pl.Tensor[[m, n], pl.FP32],
                 out: pl.Out[pl.Tensor[[m, n], pl.FP32]]) -> pl.Tensor[[m, n], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                r = pl.tensor.fmod(x, y)
                s = pl.tensor.fmods(r, divisor)
                out = pl.assemble(out, s, [0, 0])
            return out
    return TensorFmod


@pytest.mark.parametrize("divisor", [0.5, 1.25])
def test_tensor_fmod_and_fmods(divisor):
    x, y = data((16, 64), -8.0, 8.0), data((16, 64), 1.0, 3.0)
    want = np.fmod(np.fmod(x, y), np.float32(divisor)).astype(np.float32)
    check_kernel(build_tensor_fmod([16, 64], divisor), {"x": x, "y": y, "out": np.zeros((16, 64), np.float32)},
                 {"out": want})


def build_tensor_part(shape, which):
    m, n = shape
    add, mx, mn = which == "add", which == "max", which == "min"

    @pl.program
    class TensorPart:
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, x: pl.Tensor[[m, n], pl.FP32], y: pl.Tensor[[m, n], pl.FP32],
                 out: pl.Out[pl.Tensor[[m, n], pl.FP32]]) -> pl.Tensor[[m, n], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                if add:
                    r = pl.tensor.part_add(x, y)
                elif mx:
                    r = pl.tensor.part_max(x, y)
                elif mn:
                    r = pl.part_min(x, y)
                else:
                    r = pl.part_mul(x, y)
                out = pl.assemble(out, r, [0, 0])
            return out
    return TensorPart


@pytest.mark.parametrize("which", sorted(PART_NP))
def test_tensor_part_ops_on_fully_valid_tensors(which):
    x, y = data((8, 64)), data((8, 64))
    check_kernel(build_tensor_part([8, 64], which), {"x": x, "y": y, "out": np.zeros((8, 64), np.float32)},
                 {"out": PART_NP[which](x, y).astype(np.float32)})


def build_tensor_expands(shape, value):
    m, n = shape

    @pl.program
    class TensorExpands:
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, x: pl.Tensor[[m, n], pl.FP32], out: pl.Out[pl.Tensor[[m, n], pl.FP32]]) -> pl.Tensor[[m, n], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                filled = pl.expands(x, value)
                r = pl.mul(x, filled)
                out = pl.assemble(out, r, [0, 0])
            return out
    return TensorExpands


@pytest.mark.parametrize("value", [2.0, -0.5])
def test_tensor_expands_broadcasts_a_scalar(value):
    x = data((16, 32))
    check_kernel(build_tensor_expands([16, 32], value), {"x": x, "out": np.zeros((16, 32), np.float32)},
                 {"out": (x * np.float32(value)).astype(np.float32)})


def build_tensor_relu(shape):
    m, n = shape

    @pl.program
    class TensorRelu:
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, x: pl.Tensor[[m, n], pl.FP32], out: pl.Out[pl.Tensor[[m, n], pl.FP32]]) -> pl.Tensor[[m, n], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                r = pl.relu(x)  # PyPTO IR: tensor.maximum(x, 0.0)
                s = pl.minimum(r, 1.0)
                out = pl.assemble(out, s, [0, 0])
            return out
    return TensorRelu


def test_tensor_relu_is_a_maximum_with_zero():
    x = data((16, 64))
    check_kernel(build_tensor_relu([16, 64]), {"x": x, "out": np.zeros((16, 64), np.float32)},
                 {"out": np.clip(x, 0.0, 1.0).astype(np.float32)})


def build_tensor_cmp(shape, cmp_type, scalar_rhs):
    m, n = shape

    @pl.program
    class TensorCmp:
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, x: pl.Tensor[[m, n], pl.FP32], y: pl.Tensor[[m, n], pl.FP32],
                 out: pl.Out[pl.Tensor[[m, n], pl.FP32]]) -> pl.Tensor[[m, n], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                if scalar_rhs:
                    flags = pl.cmp(x, 0.0, cmp_type=cmp_type)
                else:
                    flags = pl.tensor.cmp(x, y, cmp_type=cmp_type)
                r = pl.mul(flags, x)  # tensor.cmp gives 0 / 1 values, not a packed mask
                out = pl.assemble(out, r, [0, 0])
            return out
    return TensorCmp


@pytest.mark.parametrize("cmp_type,scalar_rhs", [(2, False), (3, True), (5, True), (0, False)])
def test_tensor_cmp_gives_zero_or_one(cmp_type, scalar_rhs):
    x = RNG.integers(-2, 3, (8, 64)).astype(np.float32)
    y = RNG.integers(-2, 3, (8, 64)).astype(np.float32)
    flags = CMP_NP[cmp_type](x, np.float32(0.0) if scalar_rhs else y).astype(np.float32)
    check_kernel(build_tensor_cmp([8, 64], cmp_type, scalar_rhs), {"x": x, "y": y,
                                                                    "out": np.zeros((8, 64), np.float32)},
                 {"out": (flags * x).astype(np.float32)})


def build_precise(shape):
    m, n = shape

    @pl.program
    class Precise:
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, x: pl.Tensor[[m, n], pl.FP32], y: pl.Tensor[[m, n], pl.FP32],
                 out: pl.Out[pl.Tensor[[m, n], pl.FP32]]) -> pl.Tensor[[m, n], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                q = pl.div(x, y, high_precision=True)
                lg = pl.log(y, high_precision=True)
                rs = pl.rsqrt(y, high_precision=True)
                r = pl.add(pl.add(q, lg), rs)
                out = pl.assemble(out, r, [0, 0])
            return out
    return Precise


def test_high_precision_div_log_rsqrt():
    x, y = data((16, 64)), data((16, 64), 0.5, 4.0)
    want = (f64(x) / f64(y) + np.log(f64(y)) + 1.0 / np.sqrt(f64(y))).astype(np.float32)
    check_kernel(build_precise([16, 64]), {"x": x, "y": y, "out": np.zeros((16, 64), np.float32)}, {"out": want})


def build_tensor_maximum_scalar(shape, floor_value, dtype):
    m, n = shape

    @pl.program
    class TensorMaximumScalar:
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, x: pl.Tensor[[m, n], dtype], out: pl.Out[pl.Tensor[[m, n], dtype]]) -> pl.Tensor[[m, n], dtype]:
            with pl.at(level=pl.Level.CORE_GROUP):
                r = pl.tensor.maximum(x, floor_value)
                out = pl.assemble(out, r, [0, 0])
            return out
    return TensorMaximumScalar


@pytest.mark.parametrize("dtype,floor_value", [(pl.INT32, 3), (pl.FP32, 0.25)])
def test_tensor_maximum_with_a_scalar(dtype, floor_value):
    npd = NP[dtype]
    x = data((8, 32), dtype=npd)
    check_kernel(build_tensor_maximum_scalar([8, 32], floor_value, dtype),
                 {"x": x, "out": np.zeros((8, 32), npd)}, {"out": np.maximum(x, npd(floor_value)).astype(npd)})


# -- chains mixing the new tile ops -------------------------------------------------------------------------
def test_a_gated_residual_chain():
    """addc -> lrelu -> fmods, one tile kernel (a residual add of three streams, leaky gate, wrap)."""
    run3([16, 64], pl.FP32, "gated", lambda a, b, c: np.fmod(np.where(a + b + c > 0, a + b + c, (a + b + c) * np.float32(0.1)), 1.5))


def test_subsc_then_part_min_against_an_expands_ceiling():
    run3([8, 64], pl.FP32, "ceiling", lambda a, b, c: np.minimum(a - 0.5 + c, 1.0))


def test_int32_addc_wraps_like_the_hardware():
    a = RNG.integers(-(2**31), 2**31 - 1, (8, 32)).astype(np.int32)
    b, c = RNG.integers(-1000, 1000, (2, 8, 32)).astype(np.int32)
    want = (a.astype(np.int64) + b + c).astype(np.int32)  # two's complement wrap-around
    check_kernel(build_addc([8, 32], pl.INT32), {"a": a, "b": b, "c": c, "out": np.zeros((8, 32), np.int32)},
                 {"out": want})


# -- PyPTO's scratch operands and the remaining spellings ---------------------------------------------------
def build_rem_with_tmp(shape, divisor):
    m, n = shape

    @pl.program
    class RemWithTmp:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, a: pl.Tensor[[m, n], pl.FP32], b: pl.Tensor[[m, n], pl.FP32],
                 out: pl.Out[pl.Tensor[[m, n], pl.FP32]]) -> pl.Tensor[[m, n], pl.FP32]:
            x = pl.load(a, [0, 0], [m, n])
            y = pl.load(b, [0, 0], [m, n])
            tmp = pl.tile.create([m, n], dtype=pl.FP32, target_memory=pl.Mem.Vec)
            r = pl.tile.rem(x, y, tmp)
            q = pl.tile.rems(r, divisor, tmp)
            out = pl.store(q, [0, 0], out)
            return out
    return RemWithTmp


def test_rem_and_rems_take_pyptos_scratch():
    a, b = data((8, 64), -6.0, 6.0), data((8, 64), 1.0, 2.5)
    # rem is the remainder with the divisor's sign (numpy / torch remainder), unlike fmod.
    want = np.remainder(np.remainder(a, b), np.float32(0.75)).astype(np.float32)
    check_kernel(build_rem_with_tmp([8, 64], 0.75), {"a": a, "b": b, "out": np.zeros((8, 64), np.float32)},
                 {"out": want})


def build_xor_with_tmp(shape, key):
    m, n = shape

    @pl.program
    class XorWithTmp:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, a: pl.Tensor[[m, n], pl.INT32], b: pl.Tensor[[m, n], pl.INT32],
                 out: pl.Out[pl.Tensor[[m, n], pl.INT32]]) -> pl.Tensor[[m, n], pl.INT32]:
            x = pl.load(a, [0, 0], [m, n])
            y = pl.load(b, [0, 0], [m, n])
            tmp = pl.tile.create([m, n], dtype=pl.INT32, target_memory=pl.Mem.Vec)
            r = pl.xor(x, y, tmp=tmp)
            q = pl.tile.xors(r, key, tmp)
            out = pl.store(q, [0, 0], out)
            return out
    return XorWithTmp


def test_xor_and_xors_take_pyptos_scratch():
    a, b = (RNG.integers(0, 1 << 20, (8, 32)).astype(np.int32) for _ in range(2))
    check_kernel(build_xor_with_tmp([8, 32], 0x5A5A), {"a": a, "b": b, "out": np.zeros((8, 32), np.int32)},
                 {"out": (a ^ b ^ np.int32(0x5A5A)).astype(np.int32)})


def test_rem_on_tensors_is_a_located_error_naming_fmod():
    # PyPTO has rem / rems on tiles only; their remainder takes the divisor's sign, pl.fmod the dividend's.
    text = """import pypto.language as pl


@pl.program
class TensorRem:
    @pl.function
    def main(self, x: pl.Tensor[[8, 32], pl.INT32], out: pl.Out[pl.Tensor[[8, 32], pl.INT32]]) -> pl.Tensor[[8, 32], pl.INT32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            r = pl.rem(x, 3)
            out = pl.assemble(out, r, [0, 0])
        return out
"""
    with pytest.raises(ValueError, match=r"pl.rem: PyPTO has no tensor.rem.*pl.fmod / pl.fmods, with the dividend's "
                                         r"sign, take tensors") as info:
        pl.parse(text, "rem.py")
    assert "rem.py:9" in str(info.value)


def build_tensor_int_rsqrt(shape):
    m, n = shape

    @pl.program
    class TensorIntRsqrt:
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, x: pl.Tensor[[m, n], pl.INT32], out: pl.Out[pl.Tensor[[m, n], pl.FP32]]) -> pl.Tensor[[m, n], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                r = pl.rsqrt(x)  # an integer tensor's rsqrt is FP32
                out = pl.assemble(out, r, [0, 0])
            return out
    return TensorIntRsqrt


def test_tensor_rsqrt_of_integers_is_fp32():
    x = RNG.integers(1, 100, (8, 32)).astype(np.int32)
    check_kernel(build_tensor_int_rsqrt([8, 32]), {"x": x, "out": np.zeros((8, 32), np.float32)},
                 {"out": (1.0 / np.sqrt(f64(x))).astype(np.float32)})


def build_tile_precise(shape):
    m, n = shape

    @pl.program
    class TilePrecise:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, a: pl.Tensor[[m, n], pl.FP32], b: pl.Tensor[[m, n], pl.FP32],
                 out: pl.Out[pl.Tensor[[m, n], pl.FP32]]) -> pl.Tensor[[m, n], pl.FP32]:
            x = pl.load(a, [0, 0], [m, n])
            y = pl.load(b, [0, 0], [m, n])
            q = pl.tile.div(x, y, high_precision=True)
            lg = pl.tile.log(y, high_precision=True)
            rc = pl.recip(y, high_precision=True)
            r = pl.add(pl.add(q, lg), rc)
            out = pl.store(r, [0, 0], out)
            return out
    return TilePrecise


def test_tile_high_precision_div_log_recip():
    a, b = data((16, 32)), data((16, 32), 0.5, 3.0)
    want = (f64(a) / f64(b) + np.log(f64(b)) + 1.0 / f64(b)).astype(np.float32)
    check_kernel(build_tile_precise([16, 32]), {"a": a, "b": b, "out": np.zeros((16, 32), np.float32)}, {"out": want})


def build_tensor_cmp_select_chain(shape, threshold):
    """A PyPTO-style mask at tensor level: cmp gives 0 / 1, used arithmetically as a blend weight."""
    m, n = shape

    @pl.program
    class TensorCmpBlend:
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, x: pl.Tensor[[m, n], pl.FP32], y: pl.Tensor[[m, n], pl.FP32],
                 out: pl.Out[pl.Tensor[[m, n], pl.FP32]]) -> pl.Tensor[[m, n], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                w = pl.cmps(x, threshold, cmp_type=4)
                keep = pl.mul(w, x)
                other = pl.mul(pl.sub(pl.expands(w, 1.0), w), y)
                out = pl.assemble(out, pl.add(keep, other), [0, 0])
            return out
    return TensorCmpBlend


def test_tensor_cmp_blends_two_tensors():
    x, y = data((16, 64)), data((16, 64))
    check_kernel(build_tensor_cmp_select_chain([16, 64], 0.25), {"x": x, "y": y, "out": np.zeros((16, 64), np.float32)},
                 {"out": np.where(x > np.float32(0.25), x, y).astype(np.float32)})


def build_split_part_add(shape, mode):
    """A partial add inside a split kernel (each lane adds its half)."""
    m, n = shape

    @pl.program
    class SplitPartAdd:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, a: pl.Tensor[[m, n], pl.FP32], b: pl.Tensor[[m, n], pl.FP32],
                 out: pl.Out[pl.Tensor[[m, n], pl.FP32]]) -> pl.Tensor[[m, n], pl.FP32]:
            pl.func_attr({"split": mode})
            x = pl.load(a, [0, 0], [m, n])
            y = pl.load(b, [0, 0], [m, n])
            r = pl.tile.subc(pl.tile.part_add(x, y), y, x)
            out = pl.store(r, [0, 0], out)
            return out
    return SplitPartAdd


@pytest.mark.parametrize("mode", [pl.SplitMode.UP_DOWN, pl.SplitMode.LEFT_RIGHT])
def test_split_kernel_part_add_and_subc(mode):
    a, b = data((16, 64)), data((16, 64))
    check_kernel(build_split_part_add([16, 64], mode), {"a": a, "b": b, "out": np.zeros((16, 64), np.float32)},
                 {"out": (f64(a) + f64(b) - f64(b) + f64(a)).astype(np.float32)})

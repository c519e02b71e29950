"""Audit of `pl.cast` / tile.cast / tensor.cast on the reference machine, mode by mode (PyPTO's modes
0..6 = none, rint, round, floor, ceil, trunc, odd; default 'round').

Independent formulas: the two neighbours of the exact value in the target format are found, and the mode
picks one: rint (and none between floats) = nearest, ties to even; round = nearest, ties away from zero;
floor / ceil / trunc = directed; odd = the neighbour whose last mantissa bit is 1 (round to odd)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from .test_op_semantics_audit_helpers import BF16, check_exact, tensor_program, tile_program

F16, F32, I32, I16, I8 = np.float16, np.float32, np.int32, np.int16, np.int8


def row(values, dtype, rows=2, cols=32):
    return np.resize(np.asarray(values, dtype=object), rows * cols).reshape(rows, cols).astype(dtype)


# -- an exact reference for rounding into a float format --------------------------------------------------
def _neighbours(x: Fraction, dtype) -> tuple:
    """The largest value of `dtype` <= x and the smallest >= x (finite, x inside the format's range)."""
    dt = np.dtype(dtype)
    ubits = np.dtype(f"u{dt.itemsize}")
    approx = np.array([float(x)], np.float64).astype(dt)
    # walk the bit patterns around the (possibly rounded) approximation
    def step(v, up):
        b = v.view(ubits)[0].item()
        neg = v.astype(np.float64)[0] < 0 or (v.astype(np.float64)[0] == 0 and np.signbit(v.astype(np.float64)[0]))
        if v.astype(np.float64)[0] == 0:
            b = 1 if up else (1 | (1 << (dt.itemsize * 8 - 1)))
            return np.array([b], ubits).view(dt)
        b = b + 1 if (up != neg) else b - 1
        return np.array([b], ubits).view(dt)
    lo = approx.copy()
    while Fraction(float(lo.astype(np.float64)[0])) > x:
        lo = step(lo, up=False)
    while np.isfinite(step(lo, up=True).astype(np.float64)[0]) and \
            Fraction(float(step(lo, up=True).astype(np.float64)[0])) <= x:
        lo = step(lo, up=True)
    hi = lo if Fraction(float(lo.astype(np.float64)[0])) == x else step(lo, up=True)
    return lo, hi


def round_float(values, dtype, mode: str) -> np.ndarray:
    dt = np.dtype(dtype)
    ubits = np.dtype(f"u{dt.itemsize}")
    out = []
    for v in np.asarray(values).ravel():
        if not isinstance(v, (int, np.integer)) and float(v) == 0:
            out.append(np.array([float(v)], np.float64).astype(dt)[0])  # a signed zero keeps its sign
            continue
        x = Fraction(int(v)) if isinstance(v, (int, np.integer)) else Fraction(float(v))
        lo, hi = _neighbours(x, dt)
        flo, fhi = Fraction(float(lo.astype(np.float64)[0])), Fraction(float(hi.astype(np.float64)[0]))
        if flo == x:
            pick = lo
        elif mode in ("rint", "none", "round"):
            dlo, dhi = x - flo, fhi - x
            if dlo != dhi:
                pick = lo if dlo < dhi else hi
            elif mode == "round":
                pick = hi if x > 0 else lo
            else:
                pick = lo if lo.view(ubits)[0] % 2 == 0 else hi
        elif mode == "floor":
            pick = lo
        elif mode == "ceil":
            pick = hi
        elif mode == "trunc":
            pick = lo if x > 0 else hi
        elif mode == "odd":
            pick = lo if lo.view(ubits)[0] % 2 == 1 else hi
        else:
            raise ValueError(mode)
        out.append(pick[0])
    return np.array(out, dt).reshape(np.shape(values))


def round_int(values, mode: str) -> np.ndarray:
    x = np.asarray(values, np.float64)
    if mode == "rint":
        return np.rint(x)
    if mode == "round":
        return np.sign(x) * np.floor(np.abs(x) + 0.5)
    return {"floor": np.floor, "ceil": np.ceil, "trunc": np.trunc}[mode](x)


def cast_tile(a, target, mode):
    return tile_program({"a": a}, {"out": (a.shape, target)},
                        f"r = pl.cast(a_t, {PLN[np.dtype(target)]}, mode='{mode}')\nout = pl.store(r, [0, 0], out)")


PLN = {np.dtype(F16): "pl.FP16", np.dtype(F32): "pl.FP32", np.dtype(I32): "pl.INT32", np.dtype(I16): "pl.INT16",
       np.dtype(I8): "pl.INT8", BF16: "pl.BF16", np.dtype(np.uint8): "pl.UINT8"}

TIES = [0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 3.5, -3.5, 2.4999998, -2.4999998, 2.5000002, -2.5000002, 0.0, -0.0,
        7.0, -7.0, 0.7, -0.7, 123456.5, -123456.5, 1e-6, -1e-6]


# == float -> int ===========================================================================================
@pytest.mark.parametrize("mode", ["rint", "round", "floor", "ceil", "trunc"])
def test_fp32_to_int32_by_mode(mode):
    a = row(TIES, F32)
    check_exact(cast_tile(a, I32, mode), {"a": a}, {"out": round_int(a, mode).astype(I32)})


@pytest.mark.parametrize("mode", ["rint", "round", "floor", "trunc"])
def test_fp16_to_int16_and_fp32_to_int16_by_mode(mode):
    a = row([0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 1000.5, -1000.5, 3.25, -3.75], F16)
    check_exact(cast_tile(a, I16, mode), {"a": a}, {"out": round_int(a, mode).astype(I16)})
    b = row([0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 20000.5, -20000.5, 3.25, -3.75], F32)
    check_exact(cast_tile(b, I16, mode), {"a": b}, {"out": round_int(b, mode).astype(I16)})


def test_default_cast_mode_is_round_half_away():
    a = row(TIES, F32)
    prog = tile_program({"a": a}, {"out": (a.shape, I32)}, "r = pl.cast(a_t, pl.INT32)\nout = pl.store(r, [0, 0], out)")
    check_exact(prog, {"a": a}, {"out": round_int(a, "round").astype(I32)})


@pytest.mark.parametrize("src,dst,values,sat", [
    (F32, I32, [3e9, -3e9, 2147483520.0, -2147483648.0, 1e20, -1e20], (-(2**31), 2**31 - 1)),
    (F32, I16, [40000.0, -40000.0, 32767.0, -32768.0, 1e9, -1e9], (-(2**15), 2**15 - 1)),
    (F16, I8, [300.0, -300.0, 127.0, -128.0, 60000.0, -60000.0], (-128, 127)),
])
def test_float_to_int_out_of_range_saturates(src, dst, values, sat):
    """Out-of-range float -> int: the Ascend vector convert saturates (pto-isa TCVT); numpy / torch .to() are
    undefined there, so this only records what the machine does against saturation."""
    a = row(values, src)
    want = np.clip(np.trunc(a.astype(np.float64)), *sat).astype(dst)
    check_exact(cast_tile(a, dst, "trunc"), {"a": a}, {"out": want})


# == float -> float =========================================================================================
def fp16_ties():
    """FP32 values exactly halfway between FP16 neighbours, just off halfway, and exact ones."""
    base = [1.0, 1.5, -1.0, 1024.0, -2048.0, 0.25, 3.0, -5.0]
    vals = []
    for b in base:
        ulp = abs(b) * 2.0 ** -10 if b != 0 else 2.0 ** -24
        vals += [b + ulp / 2, b + ulp * 1.5, b + ulp / 2 + ulp / 8, b - ulp / 4, b + ulp / 3]
    vals += [0.1, -0.1, 3.14159265, 65504.0, -1e-3]
    return vals


@pytest.mark.parametrize("mode", ["none", "rint", "round", "floor", "ceil", "trunc", "odd"])
def test_fp32_to_fp16_by_mode(mode):
    a = row(fp16_ties(), F32, cols=64)
    check_exact(cast_tile(a, F16, mode), {"a": a}, {"out": round_float(a, F16, mode)})


def bf16_ties():
    base = [1.0, 1.5, -1.0, 1024.0, -3.0, 0.25, 1e20, -7.0]
    vals = []
    for b in base:
        e = np.floor(np.log2(abs(b)))
        ulp = 2.0 ** (e - 7)
        vals += [b + ulp / 2, b + ulp * 1.5, b + ulp / 2 + ulp / 8, b - ulp / 4, b + ulp / 3]
    vals += [0.1, -0.1, 3.14159265, 1e-20, -1e-3]
    return vals


@pytest.mark.parametrize("mode", ["rint", "round", "floor", "ceil", "trunc", "odd"])
def test_fp32_to_bf16_by_mode(mode):
    a = row(bf16_ties(), F32, cols=64)
    check_exact(cast_tile(a, BF16, mode), {"a": a}, {"out": round_float(a, BF16, mode)})


@pytest.mark.parametrize("src", [F16, BF16])
def test_widening_to_fp32_is_exact(src):
    rng = np.random.default_rng(5)
    a = rng.standard_normal((2, 32)).astype(src)
    a[0, :4] = np.array([np.inf, -np.inf, 0.0, -0.0]).astype(src)
    check_exact(cast_tile(a, F32, "none"), {"a": a}, {"out": a.astype(F32)})


def test_fp32_to_fp16_overflow_and_nan():
    a = row([70000.0, -70000.0, 65519.0, 65520.0, np.inf, np.nan, 1e-9, -1e-9], F32)
    with np.errstate(all="ignore"):
        want = a.astype(F16)  # IEEE rint: 65520 and beyond -> inf, 65519 -> 65504, tiny -> +-0
    check_exact(cast_tile(a, F16, "rint"), {"a": a}, {"out": want})


# == int -> float ===========================================================================================
@pytest.mark.parametrize("mode", ["rint", "round", "floor", "ceil", "trunc"])
def test_int32_to_fp32_rounds_by_mode(mode):
    vals = [2**24 + 1, 2**24 + 3, -(2**24 + 1), -(2**24 + 3), 2**31 - 1, -(2**31), 2**25 + 2, 123456789, 7, -7]
    a = row(vals, I32)
    check_exact(cast_tile(a, F32, mode), {"a": a}, {"out": round_float(a, F32, mode)})


@pytest.mark.parametrize("mode", ["rint", "round", "trunc"])
def test_int16_and_int32_to_fp16(mode):
    vals = [2049, 2051, -2049, 4097, 4098, 4099, 1, -1, 30000, -32768]
    a = row(vals, I16)
    check_exact(cast_tile(a, F16, mode), {"a": a}, {"out": round_float(a, F16, mode)})
    b = row(vals, I32)
    check_exact(cast_tile(b, F16, mode), {"a": b}, {"out": round_float(b, F16, mode)})


# == tensor.cast ============================================================================================
@pytest.mark.parametrize("mode", ["rint", "round", "floor", "ceil", "trunc"])
def test_tensor_cast_fp32_to_int32(mode):
    a = row(TIES, F32)
    prog = tensor_program({"a": a}, {"out": (a.shape, I32)},
                          f"r = pl.cast(a, pl.INT32, mode='{mode}')\nout = pl.assemble(out, r, [0, 0])")
    check_exact(prog, {"a": a}, {"out": round_int(a, mode).astype(I32)})


@pytest.mark.parametrize("mode", ["rint", "round", "odd"])
def test_tensor_cast_fp32_to_fp16(mode):
    a = row(fp16_ties(), F32, cols=64)
    prog = tensor_program({"a": a}, {"out": (a.shape, F16)},
                          f"r = pl.tensor.cast(a, pl.FP16, mode='{mode}')\nout = pl.assemble(out, r, [0, 0])")
    check_exact(prog, {"a": a}, {"out": round_float(a, F16, mode)})


# == between the 16-bit float formats, and int -> BF16 =====================================================
F16_TO_BF16 = [0.1, -0.1, 65504.0, -65504.0, 3.0, 1e-7, 0.333251953125, 1000.5, -7.0078125, 2049.0, 1.0, -0.0,
               1.00390625, -1.00390625, 1.01171875, 1.0]   # the last four: exact BF16 ties


# Fixed defect (audit): FP16 -> BF16 ignored `mode` (both 2 bytes, taken for a widening).
@pytest.mark.parametrize("mode", ["rint", "round", "floor", "ceil", "trunc", "odd"])
def test_fp16_to_bf16_by_mode(mode):
    """An FP16 value generally has more mantissa bits than BF16 keeps: the mode decides, as from FP32."""
    a = row(F16_TO_BF16, F16)
    check_exact(cast_tile(a, BF16, mode), {"a": a}, {"out": round_float(a, BF16, mode)})


def _ieee_overflow(values, dtype, mode):
    """IEEE 754 overflow: nearest modes give inf; a directed mode gives the largest finite value when it
    rounds toward zero, inf otherwise."""
    out = []
    fmax = float(np.finfo(dtype).max)
    for v in np.asarray(values, np.float64).ravel():
        if abs(v) <= fmax or not np.isfinite(v):
            out.append(round_float(np.array([v], np.float64), dtype, mode)[0] if np.isfinite(v) else v)
            continue
        big = {"rint": np.inf, "round": np.inf, "none": np.inf, "trunc": fmax,
               "floor": fmax if v > 0 else np.inf, "ceil": np.inf if v > 0 else fmax}[mode]
        out.append(np.sign(v) * big)
    return np.array(out, np.float64).reshape(np.shape(values)).astype(dtype)


# Fixed defect (audit): BF16 -> FP16 with a directed mode overflowed to +-inf (same cause as FP16 -> BF16).
@pytest.mark.parametrize("mode,src", [(m, src) for src in (F32, BF16) for m in ["rint", "trunc", "floor", "ceil"]])
def test_narrowing_to_fp16_overflows_like_ieee(src, mode):
    a = row([1e5, -1e5, 65536.0, -65536.0, 3.0, 1e-8, 65504.0, 0.5], src)
    check_exact(cast_tile(a, F16, mode), {"a": a}, {"out": _ieee_overflow(a.astype(np.float64), F16, mode)})


@pytest.mark.parametrize("mode", ["rint", "round", "trunc", "ceil"])
def test_int32_and_int16_to_bf16_by_mode(mode):
    vals = [257, 259, -257, 1000001, 123456789, -(2**31), 2**31 - 1, 7, 384, 385]
    a = row(vals, I32)
    check_exact(cast_tile(a, BF16, mode), {"a": a}, {"out": round_float(a, BF16, mode)})
    b = row([257, 259, -257, 32767, -32768, 7, 384, 385, 1001], I16)
    check_exact(cast_tile(b, BF16, mode), {"a": b}, {"out": round_float(b, BF16, mode)})


@pytest.mark.parametrize("mode", ["rint", "round", "floor", "ceil", "trunc"])
def test_bf16_to_int32_by_mode(mode):
    a = row([0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 3.75, -3.75, 130.0, -131.0, 0.0], BF16)
    check_exact(cast_tile(a, I32, mode), {"a": a}, {"out": round_int(a.astype(np.float64), mode).astype(I32)})

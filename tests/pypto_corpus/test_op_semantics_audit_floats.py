"""Audit of float op semantics on the reference machine: edge values of exp / log / sqrt / rsqrt / recip /
div, sin / cos / tanh / sigmoid, floor / ceil, abs / neg of signed zeros, maximum / minimum with NaN,
pow, and results rounded once into FP16 / BF16 (the op's dtype), plus the result dtypes of
tensor ops (int -> FP32 for exp / sqrt / rsqrt / recip; tensor-scalar promotion).

Expected values: numpy in float64 (or float32 where IEEE single is the reference), rounded once into the
result dtype, IEEE special values as torch / numpy produce them."""

from __future__ import annotations

import numpy as np
import pytest

from .test_op_semantics_audit_helpers import BF16, check_close, check_exact, tensor_program, tile_program

F16, F32 = np.float16, np.float32
INF, NAN = np.inf, np.nan

EDGE = [0.0, -0.0, 1.0, -1.0, INF, -INF, 1e-30, 0.5, 2.0, 100.0, -100.0, 1e30, 3.0, 1e-3, -2.5, 7.25]


def row(values, dtype, rows=2, cols=32):
    return np.resize(np.asarray(values, np.float64), rows * cols).reshape(rows, cols).astype(dtype)


def unary_tile(op, a, dtype, extra=""):
    return tile_program({"a": a}, {"out": (a.shape, dtype)}, f"r = pl.{op}(a_t{extra})\nout = pl.store(r, [0, 0], out)")


def ref(fn, a, dtype):
    with np.errstate(all="ignore"):
        return fn(a.astype(np.float64)).astype(dtype)


# == unary edges (FP32): IEEE results must come out exactly (inf, nan, signed zeros) =========================
UNARY = {
    "exp": np.exp, "log": np.log, "sqrt": np.sqrt, "abs": np.abs, "neg": np.negative,
    "recip": lambda x: 1.0 / x, "rsqrt": lambda x: 1.0 / np.sqrt(x), "relu": lambda x: np.maximum(x, 0.0),
}


@pytest.mark.parametrize("op", sorted(UNARY))
def test_fp32_unary_edge_values(op):
    a = row(EDGE, F32)
    want = ref(UNARY[op], a, F32)
    prog = unary_tile(f"tile.{op}", a, F32)
    # exact for the specials; the finite non-trivial values with the FP32 tolerance
    special = ~np.isfinite(want) | (want == 0) | (a == 0) | ~np.isfinite(a)
    from .test_op_semantics_audit_helpers import run_both
    for res in run_both(prog, {"a": a}, {"out": (a.shape, F32)}):
        got = res["out"]
        assert got.dtype == F32
        from .test_op_semantics_audit_helpers import same_bits
        assert same_bits(want[special], got[special]).all(), (op, a[special], want[special], got[special])
        np.testing.assert_allclose(got[~special], want[~special], rtol=2e-6)


def test_relu_of_negative_zero_and_nan():
    """relu(x) = max(x, 0): torch.relu(-0.0) is 0.0 or -0.0 by implementation, so only values are checked;
    torch.relu(nan) is nan."""
    a = row([-0.0, NAN, -1.0, 2.0], F32)
    prog = unary_tile("tile.relu", a, F32)
    check_close(prog, {"a": a}, {"out": np.where(np.isnan(a), np.float32(np.nan), np.maximum(a, 0)).astype(F32)})


@pytest.mark.parametrize("op,fn", [("sin", np.sin), ("cos", np.cos), ("tanh", np.tanh),
                                   ("sigmoid", lambda x: 1.0 / (1.0 + np.exp(-x))), ("square", np.square),
                                   ("floor", np.floor), ("ceil", np.ceil)])
def test_fp32_transcendental_and_rounding_ops(op, fn):
    a = row([0.0, -0.0, 1.0, -1.0, 3.14159, -20.0, 20.0, 100.0, -100.0, 0.5, -0.5, 2.5, -2.5, 1e-7, 88.0, -89.0,
             1.5, -1.5, 0.49999997, -0.49999997, 1000.25, -7.75, INF, -INF], F32)
    if op in ("sin", "cos"):
        a = np.where(np.isinf(a), F32(0.0), a).astype(F32)  # sin(inf) is nan everywhere; keep finite
    want = ref(fn, a, F32)
    prog = unary_tile(f"tile.{op}", a, F32)
    check_close(prog, {"a": a}, {"out": want})
    if op in ("floor", "ceil"):
        check_exact(prog, {"a": a}, {"out": want})  # exact, signed zero included (floor(-0.5) = -1, ceil(-0.5) = -0)


def test_tensor_floor_ceil_and_tanh():
    a = row([-2.5, -0.5, 0.5, 2.5, -1.0, 1.0, -7.3, 7.3], F32)
    prog = tensor_program({"a": a}, {"f": (a.shape, F32), "c": (a.shape, F32), "t": (a.shape, F32)},
                          "x = pl.tensor.floor(a)\nf = pl.assemble(f, x, [0, 0])\n"
                          "y = pl.tensor.ceil(a)\nc = pl.assemble(c, y, [0, 0])\n"
                          "z = pl.tensor.tanh(a)\nt = pl.assemble(t, z, [0, 0])")
    check_close(prog, {"a": a}, {"f": np.floor(a), "c": np.ceil(a), "t": np.tanh(a).astype(F32)})


# == FP16 / BF16: computed and rounded once into the op's dtype ==============================================
@pytest.mark.parametrize("op,fn,values", [
    ("exp", np.exp, [0.0, 1.0, 11.0, 12.0, -20.0, 5.5, -1.0, 10.5]),          # exp(12) > 65504: inf in FP16
    ("log", np.log, [0.0, -1.0, 1.0, 65504.0, 1e-4, 3.0, 0.5, 100.0]),
    ("sqrt", np.sqrt, [0.0, -1.0, 2.0, 65504.0, 1e-4, 3.0, 0.25, 100.0]),
    ("recip", lambda x: 1.0 / x, [0.0, -0.0, 3.0, 1e-5, 65504.0, -7.0, 0.1, 1.0]),  # 1/1e-5 overflows FP16
    ("rsqrt", lambda x: 1.0 / np.sqrt(x), [0.0, 4.0, 3.0, 1e-6, 65504.0, 2.0, 0.1, 1.0]),
])
def test_fp16_unary_results_are_rounded_into_fp16(op, fn, values):
    a = row(values, F16)
    want = ref(fn, a, F16)
    prog = unary_tile(f"tile.{op}", a, F16)
    check_close(prog, {"a": a}, {"out": want})


@pytest.mark.parametrize("dtype,op,fn", [(dt, op, fn) for dt in (F16, BF16)
                                         for op, fn in (("add", np.add), ("sub", np.subtract), ("mul", np.multiply),
                                                        ("div", np.divide))
                                         if not (op == "div" and dt == BF16)])  # tile.div takes no BF16
def test_low_precision_binary_is_one_rounding_of_the_exact_result(dtype, op, fn):
    rng = np.random.default_rng(7)
    a = rng.uniform(-4, 4, (2, 32)).astype(dtype)
    b = rng.uniform(0.25, 4, (2, 32)).astype(dtype)
    big = 60000.0 if dtype == F16 else 3e38
    a[0, :3] = [big, -big, 1.0]
    b[0, :3] = [big, big, 1e-3 if dtype == F16 else 1e-38]
    with np.errstate(all="ignore"):
        want = fn(a.astype(np.float64), b.astype(np.float64)).astype(np.float32).astype(dtype)
    prog = tile_program({"a": a, "b": b}, {"out": (a.shape, dtype)},
                        f"r = pl.tile.{op}(a_t, b_t)\nout = pl.store(r, [0, 0], out)")
    check_exact(prog, {"a": a, "b": b}, {"out": want})


@pytest.mark.parametrize("dtype", [F16, BF16])
def test_low_precision_tile_scalar_ops_keep_the_tile_dtype(dtype):
    """A tile op keeps the tile's dtype (FP16 tile + 1.0 -> FP16; docs/dsl.md, functions); the FP32 scalar is
    narrowed."""
    a = row([1.0, 2.0, -3.5, 1000.0, 0.1, 7.0, 65000.0 if dtype == F16 else 1e30, -0.0], dtype)
    prog = tile_program({"a": a}, {"s": (a.shape, dtype), "m": (a.shape, dtype)},
                        "x = pl.add(a_t, 1.0)\ns = pl.store(x, [0, 0], s)\ny = pl.mul(a_t, 3.0)\nm = pl.store(y, [0, 0], m)")
    with np.errstate(all="ignore"):
        want_s = (a.astype(np.float64) + 1.0).astype(np.float32).astype(dtype)
        want_m = (a.astype(np.float64) * 3.0).astype(np.float32).astype(dtype)
    check_exact(prog, {"a": a}, {"s": want_s, "m": want_m})


def test_fp32_div_by_zero_and_zero_by_zero():
    a = row([1.0, -1.0, 0.0, 0.0, INF, 5.0, -0.0, 3.0], F32)
    b = row([0.0, 0.0, 0.0, -0.0, INF, -0.0, 2.0, INF], F32)
    with np.errstate(all="ignore"):
        want = (a / b).astype(F32)
    prog = tile_program({"a": a, "b": b}, {"out": (a.shape, F32)}, "r = pl.tile.div(a_t, b_t)\nout = pl.store(r, [0, 0], out)")
    check_exact(prog, {"a": a, "b": b}, {"out": want})


# == maximum / minimum with NaN (torch.maximum / numpy.maximum propagate NaN) ================================
def test_maximum_minimum_propagate_nan():
    a = row([NAN, 1.0, NAN, -INF, 0.0, -0.0, 3.0, NAN], F32)
    b = row([1.0, NAN, NAN, NAN, -0.0, 0.0, 2.0, -INF], F32)
    prog = tile_program({"a": a, "b": b}, {"mx": (a.shape, F32), "mn": (a.shape, F32)},
                        "x = pl.tile.maximum(a_t, b_t)\nmx = pl.store(x, [0, 0], mx)\n"
                        "y = pl.tile.minimum(a_t, b_t)\nmn = pl.store(y, [0, 0], mn)")
    mx, mn = np.maximum(a, b), np.minimum(a, b)
    check_close(prog, {"a": a, "b": b}, {"mx": mx, "mn": mn})


def test_maximums_minimums_with_nan_inputs():
    a = row([NAN, 1.0, -5.0, INF, -INF, 0.5], F32)
    prog = tile_program({"a": a}, {"mx": (a.shape, F32), "mn": (a.shape, F32)},
                        "x = pl.tile.maximums(a_t, 0.0)\nmx = pl.store(x, [0, 0], mx)\n"
                        "y = pl.tile.minimums(a_t, 0.0)\nmn = pl.store(y, [0, 0], mn)")
    check_close(prog, {"a": a}, {"mx": np.maximum(a, F32(0)), "mn": np.minimum(a, F32(0))})


# == pow =====================================================================================================
def test_tile_pow_edges():
    a = row([2.0, -2.0, -2.0, 0.0, 0.0, 4.0, 1.0, -8.0, 10.0, 0.5, NAN, 1.0], F32)
    b = row([3.0, 3.0, 0.5, 0.0, -1.0, 0.5, NAN, 2.0, -2.0, 40.0, 0.0, INF], F32)
    with np.errstate(all="ignore"):
        want = np.power(a.astype(np.float64), b.astype(np.float64)).astype(F32)   # torch.pow agrees
    prog = tile_program({"a": a, "b": b}, {"out": (a.shape, F32)}, "r = pl.tile.pow(a_t, b_t)\nout = pl.store(r, [0, 0], out)")
    check_close(prog, {"a": a, "b": b}, {"out": want})


def test_tensor_pow():
    a = row([2.0, 3.0, 1.5, 0.25, 9.0, -3.0], F32)
    b = row([2.0, 0.5, -1.0, 2.0, 0.5, 2.0], F32)
    prog = tensor_program({"a": a, "b": b}, {"out": (a.shape, F32)}, "r = pl.tensor.pow(a, b)\nout = pl.assemble(out, r, [0, 0])")
    check_close(prog, {"a": a, "b": b}, {"out": np.power(a.astype(np.float64), b).astype(F32)})


# == lrelu / prelu on negatives and zeros ===================================================================
def test_lrelu_prelu():
    a = row([-2.0, -0.0, 0.0, 3.0, -INF, 1e-3, -1e-3, 5.0], F32)
    s = row([0.5, 0.25, 0.1, 0.2], F32)
    prog = tile_program({"a": a, "s": s}, {"l": (a.shape, F32), "p": (a.shape, F32)},
                        "tmp = pl.tile.create([2, 32], dtype=pl.FP32, target_memory=pl.Mem.Vec)\n"
                        "x = pl.tile.lrelu(a_t, 0.1)\nl = pl.store(x, [0, 0], l)\n"
                        "y = pl.tile.prelu(a_t, s_t, tmp)\np = pl.store(y, [0, 0], p)")
    check_close(prog, {"a": a, "s": s}, {"l": np.where(a > 0, a, a * F32(0.1)).astype(F32),
                                         "p": np.where(a > 0, a, a * s).astype(F32)})


# == tensor result dtypes (tensor.exp / sqrt / rsqrt / recip: in.dtype if float else FP32;
#    a tensor op promotes (tensor dtype, scalar dtype): docs/dsl.md, functions) ============================
@pytest.mark.parametrize("op,fn", [("exp", np.exp), ("sqrt", np.sqrt), ("recip", lambda x: 1.0 / x),
                                   ("rsqrt", lambda x: 1.0 / np.sqrt(x))])
def test_tensor_unary_of_int32_gives_fp32(op, fn):
    a = (np.arange(64).reshape(2, 32) % 9 + 1).astype(np.int32)
    prog = tensor_program({"a": a}, {"out": (a.shape, F32)}, f"r = pl.tensor.{op}(a)\nout = pl.assemble(out, r, [0, 0])")
    check_close(prog, {"a": a}, {"out": fn(a.astype(np.float64)).astype(F32)})


def test_tensor_fp16_plus_float_literal_is_fp32():
    a = row([1.0, 2.5, 65504.0, -3.0, 0.1], F16)
    prog = tensor_program({"a": a}, {"out": (a.shape, F32)}, "r = pl.add(a, 65504.0)\nout = pl.assemble(out, r, [0, 0])")
    # promoted to FP32 before adding: 65504 + 65504 = 131008 does not overflow
    check_exact(prog, {"a": a}, {"out": (a.astype(np.float64) + 65504.0).astype(F32)})


def test_tensor_int32_times_float_literal_is_fp32():
    a = (np.arange(64).reshape(2, 32) - 30).astype(np.int32)
    prog = tensor_program({"a": a}, {"out": (a.shape, F32)}, "r = pl.mul(a, 1.5)\nout = pl.assemble(out, r, [0, 0])")
    check_exact(prog, {"a": a}, {"out": (a.astype(np.float64) * 1.5).astype(F32)})


def test_tensor_sub_with_scalar_keeps_the_tensor_dtype():
    """tensor.subs gives Tensor[lhs.shape; lhs.dtype]: the scalar does not promote."""
    a = row([1.0, 2.0, 3.0, -4.0], F16)
    prog = tensor_program({"a": a}, {"out": (a.shape, F16)}, "r = pl.tensor.subs(a, 0.5)\nout = pl.assemble(out, r, [0, 0])")
    check_exact(prog, {"a": a}, {"out": (a.astype(np.float64) - 0.5).astype(F16)})


# == high_precision variants give the same values =============================================================
def test_fp16_high_precision_div_log_recip():
    rng = np.random.default_rng(3)
    a = rng.uniform(-8, 8, (2, 32)).astype(F16)
    b = rng.uniform(0.5, 8, (2, 32)).astype(F16)
    prog = tile_program({"a": a, "b": b}, {"q": (a.shape, F16), "lg": (a.shape, F16), "rc": (a.shape, F16)},
                        "x = pl.tile.div(a_t, b_t, high_precision=True)\nq = pl.store(x, [0, 0], q)\n"
                        "y = pl.tile.log(b_t, high_precision=True)\nlg = pl.store(y, [0, 0], lg)\n"
                        "z = pl.tile.recip(b_t, high_precision=True)\nrc = pl.store(z, [0, 0], rc)")
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    check_close(prog, {"a": a, "b": b}, {"q": (a64 / b64).astype(F16), "lg": np.log(b64).astype(F16),
                                         "rc": (1.0 / b64).astype(F16)})

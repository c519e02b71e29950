"""Audit of integer op semantics on the reference machine: division / remainder of negative integers,
two's-complement wrap in INT8/INT16/INT32, shifts, bitwise ops, abs / neg / maximum / minimum.

Expected values are written here with numpy / Python integer arithmetic (torch semantics: integer
`div` of two int tiles truncates toward zero, C `fmod` keeps the dividend's sign, `remainder` keeps the
divisor's sign; arithmetic wraps modulo 2^bits; `>>` of a signed integer is arithmetic)."""

from __future__ import annotations

import numpy as np
import pytest

from .test_op_semantics_audit_helpers import check_exact, tensor_program, tile_program

R = np.random.default_rng(20240601)

I8, I16, I32, U16 = np.int8, np.int16, np.int32, np.uint16


def wrap(values, dtype) -> np.ndarray:
    """Python / int64 values reduced modulo 2^bits into `dtype` (two's complement)."""
    bits = np.dtype(dtype).itemsize * 8
    v = np.asarray(values, dtype=object)
    mod = 1 << bits
    red = np.vectorize(lambda x: ((int(x) + (1 << (bits - 1))) % mod) - (1 << (bits - 1))
                       if np.dtype(dtype).kind == "i" else int(x) % mod, otypes=[object])(v)
    return red.astype(dtype)


def trunc_div(a, b) -> np.ndarray:
    a64, b64 = np.asarray(a, np.int64), np.asarray(b, np.int64)
    q = np.abs(a64) // np.abs(b64)
    return np.where((a64 < 0) ^ (b64 < 0), -q, q)


def sign_pairs(dtype, rows=2, cols=32):
    """Dividends / divisors covering every sign combination and exact / inexact quotients."""
    a = np.resize(np.array([7, -7, 7, -7, 6, -6, 1, -1, 0, 13, -13, 100, -100, 5, -5, 3]), rows * cols)
    b = np.resize(np.array([2, 2, -2, -2, 3, -3, 4, -4, 5, 5, -5, 7, 7, -3, 3, 8]), rows * cols)
    return a.reshape(rows, cols).astype(dtype), b.reshape(rows, cols).astype(dtype)


# == division ==============================================================================================
@pytest.mark.parametrize("dtype", [I32, I16])
def test_tile_div_of_negative_integers_truncates(dtype):
    a, b = sign_pairs(dtype)
    prog = tile_program({"a": a, "b": b}, {"out": (a.shape, dtype)},
                        "r = pl.tile.div(a_t, b_t)\nout = pl.store(r, [0, 0], out)")
    check_exact(prog, {"a": a, "b": b}, {"out": trunc_div(a, b).astype(dtype)})


@pytest.mark.parametrize("divisor", [3, -3, 4])
def test_tile_divs_of_negative_integers_truncates(divisor):
    a, _ = sign_pairs(I32)
    prog = tile_program({"a": a}, {"out": (a.shape, I32)},
                        f"r = pl.tile.divs(a_t, {divisor})\nout = pl.store(r, [0, 0], out)")
    check_exact(prog, {"a": a}, {"out": trunc_div(a, divisor).astype(I32)})


def test_tensor_div_of_negative_integers_truncates():
    a, b = sign_pairs(I32)
    prog = tensor_program({"a": a, "b": b}, {"out": (a.shape, I32)},
                          "r = pl.tensor.div(a, b)\nout = pl.assemble(out, r, [0, 0])")
    check_exact(prog, {"a": a, "b": b}, {"out": trunc_div(a, b).astype(I32)})


# == fmod / rem ============================================================================================
@pytest.mark.parametrize("dtype", [I32, I16, np.float32])
def test_tile_fmod_keeps_the_dividends_sign(dtype):
    a, b = sign_pairs(dtype)
    prog = tile_program({"a": a, "b": b}, {"out": (a.shape, dtype)},
                        "r = pl.tile.fmod(a_t, b_t)\nout = pl.store(r, [0, 0], out)")
    check_exact(prog, {"a": a, "b": b}, {"out": np.fmod(a, b).astype(dtype)})


@pytest.mark.parametrize("divisor", [3, -3])
def test_tile_fmods_int_keeps_the_dividends_sign(divisor):
    a, _ = sign_pairs(I32)
    prog = tile_program({"a": a}, {"out": (a.shape, I32)},
                        f"r = pl.tile.fmods(a_t, {divisor})\nout = pl.store(r, [0, 0], out)")
    check_exact(prog, {"a": a}, {"out": np.fmod(a, I32(divisor)).astype(I32)})


# Fixed defect (audit): tile.rem / tile.rems computed C fmod, the same as tile.fmod; PyPTO keeps rem and fmod as
# two ops, rem taking a tmp tile: rem is torch.remainder / numpy.remainder / Python % (the divisor's sign).
@pytest.mark.parametrize("dtype", [I32, np.float32])
def test_tile_rem_takes_the_divisors_sign(dtype):
    a, b = sign_pairs(dtype)
    prog = tile_program({"a": a, "b": b}, {"out": (a.shape, dtype)},
                        f"tmp = pl.tile.create([{a.shape[0]}, {a.shape[1]}], dtype={'pl.INT32' if dtype is I32 else 'pl.FP32'}, "
                        "target_memory=pl.Mem.Vec)\nr = pl.tile.rem(a_t, b_t, tmp)\nout = pl.store(r, [0, 0], out)")
    check_exact(prog, {"a": a, "b": b}, {"out": np.remainder(a, b).astype(dtype)})


def test_tile_rems_takes_the_divisors_sign():
    a, _ = sign_pairs(I32)
    prog = tile_program({"a": a}, {"out": (a.shape, I32)},
                        f"tmp = pl.tile.create([{a.shape[0]}, {a.shape[1]}], dtype=pl.INT32, target_memory=pl.Mem.Vec)\n"
                        "r = pl.tile.rems(a_t, 3, tmp)\nout = pl.store(r, [0, 0], out)")
    check_exact(prog, {"a": a}, {"out": np.remainder(a, I32(3)).astype(I32)})


def test_tile_rem_agrees_with_remainder_when_signs_match():
    """Where dividend and divisor share a sign, floor and truncation agree: this part must hold anyway."""
    a = np.abs(sign_pairs(I32)[0])
    b = np.abs(sign_pairs(I32)[1]) + 1
    prog = tile_program({"a": a, "b": b}, {"out": (a.shape, I32)},
                        f"tmp = pl.tile.create([{a.shape[0]}, {a.shape[1]}], dtype=pl.INT32, target_memory=pl.Mem.Vec)\n"
                        "r = pl.tile.rem(a_t, b_t, tmp)\nout = pl.store(r, [0, 0], out)")
    check_exact(prog, {"a": a, "b": b}, {"out": np.remainder(a, b).astype(I32)})


# == wrap-around arithmetic ================================================================================
EDGES = {I8: [127, -128, 100, -100, 1, -1, 64, 0], I16: [32767, -32768, 20000, -20000, 1, -1, 256, 0],
         I32: [2**31 - 1, -(2**31), 2**30, -(2**30), 1, -1, 65536, 0]}
OTHER = {I8: [1, -1, 100, -100, 127, -128, 2, 0], I16: [1, -1, 20000, -20000, 32767, 2, 256, 3],
         I32: [1, -1, 2**30, -(2**30), 2**31 - 1, 2, 65536, 3]}


def edge_pair(dtype):
    a = np.resize(np.array(EDGES[dtype], np.int64), 64).reshape(2, 32)
    b = np.resize(np.array(OTHER[dtype], np.int64), 64).reshape(2, 32)
    return a.astype(dtype), b.astype(dtype)


@pytest.mark.parametrize("dtype", [I8, I16, I32])
@pytest.mark.parametrize("op,fn", [("add", lambda a, b: a + b), ("sub", lambda a, b: a - b),
                                   ("mul", lambda a, b: a * b)])
def test_tile_integer_arithmetic_wraps(dtype, op, fn):
    a, b = edge_pair(dtype)
    prog = tile_program({"a": a, "b": b}, {"out": (a.shape, dtype)},
                        f"r = pl.tile.{op}(a_t, b_t)\nout = pl.store(r, [0, 0], out)")
    want = wrap(fn(a.astype(object), b.astype(object)), dtype)
    check_exact(prog, {"a": a, "b": b}, {"out": want})


@pytest.mark.parametrize("op,scalar,fn", [("adds", 1, lambda a, s: a + s), ("muls", 3, lambda a, s: a * s),
                                          ("subs", 2, lambda a, s: a - s)])
@pytest.mark.parametrize("dtype", [I16, I32])
def test_tile_integer_scalar_arithmetic_wraps(dtype, op, scalar, fn):
    a, _ = edge_pair(dtype)
    prog = tile_program({"a": a}, {"out": (a.shape, dtype)},
                        f"r = pl.tile.{op}(a_t, {scalar})\nout = pl.store(r, [0, 0], out)")
    check_exact(prog, {"a": a}, {"out": wrap(fn(a.astype(object), scalar), dtype)})


def test_tensor_int32_add_and_mul_wrap():
    a, b = edge_pair(I32)
    prog = tensor_program({"a": a, "b": b}, {"s": (a.shape, I32), "p": (a.shape, I32)},
                          "r = pl.tensor.add(a, b)\ns = pl.assemble(s, r, [0, 0])\n"
                          "q = pl.tensor.mul(a, b)\np = pl.assemble(p, q, [0, 0])")
    check_exact(prog, {"a": a, "b": b}, {"s": wrap(a.astype(object) + b.astype(object), I32),
                                         "p": wrap(a.astype(object) * b.astype(object), I32)})


@pytest.mark.parametrize("dtype", [I16, I32])
def test_abs_and_neg_of_the_most_negative_integer_wrap(dtype):
    a, _ = edge_pair(dtype)
    prog = tile_program({"a": a}, {"ab": (a.shape, dtype), "ng": (a.shape, dtype)},
                        "x = pl.abs(a_t)\nab = pl.store(x, [0, 0], ab)\ny = pl.neg(a_t)\nng = pl.store(y, [0, 0], ng)")
    obj = a.astype(object)
    check_exact(prog, {"a": a}, {"ab": wrap(np.abs(obj), dtype), "ng": wrap(-obj, dtype)})


@pytest.mark.parametrize("dtype", [I16, I32])
def test_integer_maximum_minimum(dtype):
    a, b = edge_pair(dtype)
    prog = tile_program({"a": a, "b": b}, {"mx": (a.shape, dtype), "mn": (a.shape, dtype)},
                        "x = pl.maximum(a_t, b_t)\nmx = pl.store(x, [0, 0], mx)\n"
                        "y = pl.tile.minimums(a_t, -5)\nmn = pl.store(y, [0, 0], mn)")
    check_exact(prog, {"a": a, "b": b}, {"mx": np.maximum(a, b), "mn": np.minimum(a, dtype(-5))})


# == shifts ================================================================================================
def shift_operands(dtype):
    bits = np.dtype(dtype).itemsize * 8
    vals = [1, -1, 5, -5, 0x40, -(1 << (bits - 2)), (1 << (bits - 2)) + 3, -(1 << (bits - 1)), 12345 % (1 << (bits - 1)), -7]
    a = np.resize(np.array(vals, np.int64), 64).reshape(2, 32).astype(dtype)
    s = np.resize(np.array([0, 1, 2, 3, 4, bits - 2, 1, 1, 5, 2, bits - 1], np.int64), 64).reshape(2, 32).astype(dtype)
    return a, s


def shl_ref(a, s, dtype):
    return wrap(np.array([int(x) << int(k) for x, k in zip(a.ravel(), s.ravel())], object).reshape(a.shape), dtype)


def shr_ref(a, s, dtype):
    """Arithmetic shift for a signed dtype (floor(a / 2^s)), logical for an unsigned one."""
    return np.array([int(x) >> int(k) for x, k in zip(a.ravel(), s.ravel())], np.int64).reshape(a.shape).astype(dtype)


@pytest.mark.parametrize("dtype", [I16, I32])
def test_tile_shl_and_shr_by_tiles(dtype):
    a, s = shift_operands(dtype)
    prog = tile_program({"a": a, "s": s}, {"l": (a.shape, dtype), "r": (a.shape, dtype)},
                        "x = pl.tile.shl(a_t, s_t)\nl = pl.store(x, [0, 0], l)\n"
                        "y = pl.tile.shr(a_t, s_t)\nr = pl.store(y, [0, 0], r)")
    check_exact(prog, {"a": a, "s": s}, {"l": shl_ref(a, s, dtype), "r": shr_ref(a, s, dtype)})


@pytest.mark.parametrize("dtype", [I16, I32])
@pytest.mark.parametrize("k", [1, 3])
def test_tile_shls_and_shrs_by_a_scalar(dtype, k):
    a, _ = shift_operands(dtype)
    s = np.full(a.shape, k, dtype)
    prog = tile_program({"a": a}, {"l": (a.shape, dtype), "r": (a.shape, dtype)},
                        f"x = pl.tile.shls(a_t, {k})\nl = pl.store(x, [0, 0], l)\n"
                        f"y = pl.tile.shrs(a_t, {k})\nr = pl.store(y, [0, 0], r)")
    check_exact(prog, {"a": a}, {"l": shl_ref(a, s, dtype), "r": shr_ref(a, s, dtype)})


def test_tile_shr_of_uint16_is_logical():
    a = np.resize(np.array([0xFFFF, 0x8000, 0x1234, 1, 0xF00F], np.int64), 64).reshape(2, 32).astype(U16)
    s = np.resize(np.array([1, 4, 3, 0, 8], np.int64), 64).reshape(2, 32).astype(U16)
    prog = tile_program({"a": a, "s": s}, {"r": (a.shape, U16), "l": (a.shape, U16)},
                        "y = pl.tile.shr(a_t, s_t)\nr = pl.store(y, [0, 0], r)\n"
                        "x = pl.tile.shl(a_t, s_t)\nl = pl.store(x, [0, 0], l)")
    check_exact(prog, {"a": a, "s": s}, {"r": shr_ref(a, s, U16), "l": shl_ref(a, s, U16)})


def test_tensor_shifts():
    a, s = shift_operands(I32)
    prog = tensor_program({"a": a, "s": s}, {"l": (a.shape, I32), "r": (a.shape, I32), "rs": (a.shape, I32)},
                          "x = pl.tensor.shl(a, s)\nl = pl.assemble(l, x, [0, 0])\n"
                          "y = pl.tensor.shr(a, s)\nr = pl.assemble(r, y, [0, 0])\n"
                          "z = pl.tensor.shrs(a, 2)\nrs = pl.assemble(rs, z, [0, 0])")
    check_exact(prog, {"a": a, "s": s}, {"l": shl_ref(a, s, I32), "r": shr_ref(a, s, I32),
                                         "rs": shr_ref(a, np.full(a.shape, 2), I32)})


# == bitwise ===============================================================================================
@pytest.mark.parametrize("dtype", [I16, I32])
def test_tile_bitwise_and_or_xor(dtype):
    info = np.iinfo(dtype)
    a = R.integers(info.min, info.max, (2, 32), endpoint=True).astype(dtype)
    b = R.integers(info.min, info.max, (2, 32), endpoint=True).astype(dtype)
    prog = tile_program({"a": a, "b": b}, {"o_and": (a.shape, dtype), "o_or": (a.shape, dtype),
                                           "o_xor": (a.shape, dtype)},
                        f"tmp = pl.tile.create([2, 32], dtype={'pl.INT16' if dtype is I16 else 'pl.INT32'}, "
                        "target_memory=pl.Mem.Vec)\n"
                        "x = pl.tile.and_(a_t, b_t)\no_and = pl.store(x, [0, 0], o_and)\n"
                        "y = pl.tile.or_(a_t, b_t)\no_or = pl.store(y, [0, 0], o_or)\n"
                        "z = pl.tile.xor(a_t, b_t, tmp)\no_xor = pl.store(z, [0, 0], o_xor)")
    check_exact(prog, {"a": a, "b": b}, {"o_and": a & b, "o_or": a | b, "o_xor": a ^ b})


def test_tile_bitwise_with_negative_scalars():
    a = R.integers(-(2**31), 2**31 - 1, (2, 32)).astype(I32)
    prog = tile_program({"a": a}, {"o_and": (a.shape, I32), "o_or": (a.shape, I32), "o_xor": (a.shape, I32)},
                        "tmp = pl.tile.create([2, 32], dtype=pl.INT32, target_memory=pl.Mem.Vec)\n"
                        "x = pl.tile.ands(a_t, -16)\no_and = pl.store(x, [0, 0], o_and)\n"
                        "y = pl.tile.ors(a_t, 255)\no_or = pl.store(y, [0, 0], o_or)\n"
                        "z = pl.tile.xors(a_t, -1, tmp)\no_xor = pl.store(z, [0, 0], o_xor)")
    check_exact(prog, {"a": a}, {"o_and": a & I32(-16), "o_or": a | I32(255), "o_xor": a ^ I32(-1)})


@pytest.mark.parametrize("dtype", [I16, U16])
def test_tile_and_tensor_not(dtype):
    info = np.iinfo(dtype)
    a = R.integers(info.min, info.max, (2, 32), endpoint=True).astype(dtype)
    a[0, :4] = [0, info.max, info.min, 1]
    prog = tile_program({"a": a}, {"out": (a.shape, dtype)}, "r = pl.tile.not_(a_t)\nout = pl.store(r, [0, 0], out)")
    check_exact(prog, {"a": a}, {"out": np.invert(a)})
    tprog = tensor_program({"a": a}, {"out": (a.shape, dtype)}, "r = pl.tensor.not_(a)\nout = pl.assemble(out, r, [0, 0])")
    check_exact(tprog, {"a": a}, {"out": np.invert(a)})


def test_tensor_bitwise_ops():
    a = R.integers(-(2**31), 2**31 - 1, (2, 32)).astype(I32)
    b = R.integers(-(2**31), 2**31 - 1, (2, 32)).astype(I32)
    prog = tensor_program({"a": a, "b": b}, {"o_and": (a.shape, I32), "o_or": (a.shape, I32), "o_xor": (a.shape, I32)},
                          "x = pl.tensor.and_(a, b)\no_and = pl.assemble(o_and, x, [0, 0])\n"
                          "y = pl.tensor.or_(a, b)\no_or = pl.assemble(o_or, y, [0, 0])\n"
                          "z = pl.tensor.xor(a, b)\no_xor = pl.assemble(o_xor, z, [0, 0])")
    check_exact(prog, {"a": a, "b": b}, {"o_and": a & b, "o_or": a | b, "o_xor": a ^ b})


def test_float_fmod_special_values():
    """C fmod / torch.fmod: fmod(x, 0) and fmod(inf, y) are NaN, fmod(x, inf) = x, the zero keeps x's sign."""
    a = np.resize(np.array([5.0, -5.0, np.inf, -0.0, 0.0, 5.5, -5.5, 1e30, 7.0, -7.0]), 64).reshape(2, 32).astype(np.float32)
    b = np.resize(np.array([0.0, 0.0, 2.0, 3.0, -3.0, np.inf, np.inf, 3.0, -7.0, 7.0]), 64).reshape(2, 32).astype(np.float32)
    with np.errstate(all="ignore"):
        want = np.fmod(a.astype(np.float64), b.astype(np.float64)).astype(np.float32)
    prog = tile_program({"a": a, "b": b}, {"out": (a.shape, np.float32)},
                        "r = pl.tile.fmod(a_t, b_t)\nout = pl.store(r, [0, 0], out)")
    check_exact(prog, {"a": a, "b": b}, {"out": want})

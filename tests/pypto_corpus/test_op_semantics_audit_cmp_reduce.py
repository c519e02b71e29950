"""Audit of compare / select, reductions and row / column broadcasts on the reference machine.

Formulas: cmp_type 0..5 = EQ, NE, LT, LE, GT, GE with IEEE NaN rules (only NE holds with a NaN); the tile
mask packs element i of a row into bit i % 8 of byte i // 8 (LSB first; tile.cmp gives UINT8, last dim
roundup(ceil(N/8), 32), valid ceil(N/8)); tensor.cmp gives 1 / 0 in the promoted input dtype.
Reductions are torch's: sums exact then rounded once into the input dtype (except the FP16 tile.col_sum,
rounded at every partial sum in the hardware's order), max / min propagate NaN,
argmax / argmin return the first index among ties. Broadcast ops: tile OP vector (x - v, x / v,
exp(x - v))."""

from __future__ import annotations

import numpy as np
import pytest

from .test_op_semantics_audit_helpers import check_close, check_exact, run_both, tensor_program, tile_program

F16, F32, I32, I16 = np.float16, np.float32, np.int32, np.int16
NAN, INF = np.nan, np.inf
CMP = [np.equal, np.not_equal, np.less, np.less_equal, np.greater, np.greater_equal]
PLN = {np.dtype(F16): "pl.FP16", np.dtype(F32): "pl.FP32", np.dtype(I32): "pl.INT32", np.dtype(I16): "pl.INT16"}
R = np.random.default_rng(99)


def row(values, dtype, rows=2, cols=64):
    return np.resize(np.asarray(values, np.float64), rows * cols).reshape(rows, cols).astype(dtype)


def cmp_operands(dtype):
    if np.dtype(dtype).kind == "f":
        a = row([NAN, 1.0, 2.0, -1.0, NAN, INF, -INF, 0.0, -0.0, 3.0, 5.0], dtype)
        b = row([1.0, NAN, 2.0, 1.0, NAN, INF, 0.0, -0.0, 0.0, 2.0, 7.0, -3.0], dtype)
    else:
        a = row([1, 2, -3, 4, 5, -6, 7, 0, 2**15 - 1, -(2**15)], dtype)
        b = row([1, 3, -3, -4, 6, -7, 7, 1, -(2**15), 2**15 - 1, 0], dtype)
    return a, b


def packed(bits: np.ndarray) -> np.ndarray:
    """bool rows -> packed bytes, element i in bit i % 8 of byte i // 8."""
    return np.packbits(bits, axis=-1, bitorder="little")


# == packed masks ==========================================================================================
@pytest.mark.parametrize("dtype", [F32, F16, I32, I16])
@pytest.mark.parametrize("cmp_type", range(6))
def test_tile_cmp_mask_bits_and_sel(dtype, cmp_type):
    a, b = cmp_operands(dtype)
    pln = PLN[np.dtype(dtype)]
    prog = tile_program({"a": a, "b": b}, {"m": ((2, 32), np.uint8), "out": (a.shape, dtype)},
                        f"k = pl.tile.cmp(a_t, b_t, cmp_type={cmp_type})\nm = pl.store(k, [0, 0], m)\n"
                        "tmp = pl.tile.create([1, 32], dtype=pl.UINT8, target_memory=pl.Mem.Vec)\n"
                        "r = pl.tile.sel(k, a_t, b_t, tmp)\nout = pl.store(r, [0, 0], out)")
    with np.errstate(invalid="ignore"):
        bits = CMP[cmp_type](a, b)
    want_sel = np.where(bits, a, b)
    for res in run_both(prog, {"a": a, "b": b}, {"m": ((2, 32), np.uint8), "out": (a.shape, dtype)}):
        assert res["m"].dtype == np.uint8
        np.testing.assert_array_equal(res["m"][:, :8], packed(bits))
        got = res["out"]
        same = (got == want_sel) | (np.isnan(got.astype(np.float64)) & np.isnan(want_sel.astype(np.float64)))
        assert same.all(), (cmp_type, a[~same], b[~same], got[~same], want_sel[~same])


@pytest.mark.parametrize("cmp_type", range(6))
def test_tile_cmps_with_a_scalar_then_sels(cmp_type):
    a = row([NAN, 0.5, 1.0, 1.5, -1.0, INF, 1.0, 0.0], F32)
    prog = tile_program({"a": a}, {"out": (a.shape, F32)},
                        f"k = pl.tile.cmps(a_t, 1.0, cmp_type={cmp_type})\n"
                        "tmp = pl.tile.create([1, 32], dtype=pl.UINT8, target_memory=pl.Mem.Vec)\n"
                        "r = pl.tile.sels(k, a_t, tmp, -9.0)\nout = pl.store(r, [0, 0], out)")
    with np.errstate(invalid="ignore"):
        want = np.where(CMP[cmp_type](a, F32(1.0)), a, F32(-9.0)).astype(F32)
    check_exact(prog, {"a": a}, {"out": want})


@pytest.mark.parametrize("dtype", [F32, I32, F16])
@pytest.mark.parametrize("cmp_type", [0, 1, 2, 5])
def test_tensor_cmp_gives_one_or_zero_in_the_input_dtype(dtype, cmp_type):
    a, b = cmp_operands(dtype)
    # a float literal is an FP32 scalar: FP16 tensor vs 1.0 promotes to FP32 (docs/dsl.md, functions)
    sdt = F32 if np.dtype(dtype).kind == "f" else dtype
    prog = tensor_program({"a": a, "b": b}, {"out": (a.shape, dtype), "outs": (a.shape, sdt)},
                          f"r = pl.tensor.cmp(a, b, cmp_type={cmp_type})\nout = pl.assemble(out, r, [0, 0])\n"
                          f"q = pl.cmp(a, 1, cmp_type={cmp_type})\nouts = pl.assemble(outs, q, [0, 0])"
                          if np.dtype(dtype).kind == "i" else
                          f"r = pl.tensor.cmp(a, b, cmp_type={cmp_type})\nout = pl.assemble(out, r, [0, 0])\n"
                          f"q = pl.cmp(a, 1.0, cmp_type={cmp_type})\nouts = pl.assemble(outs, q, [0, 0])")
    with np.errstate(invalid="ignore"):
        want = CMP[cmp_type](a, b).astype(dtype)
        want_s = CMP[cmp_type](a, dtype(1)).astype(sdt)
    check_exact(prog, {"a": a, "b": b}, {"out": want, "outs": want_s})


# == reductions ============================================================================================
def test_fp16_row_sum_accumulates_exactly_then_rounds():
    """torch.sum of a half tensor accumulates in float: 2048 + 63 * 1 = 2111 -> 2112 in FP16 (a pure FP16
    running sum would stay at 2048)."""
    x = np.ones((4, 64), F16)
    x[:, 0] = 2048.0
    x[1, 1:] = 0.5
    x[2] = R.uniform(-1, 1, 64).astype(F16)
    want = x.astype(np.float64).sum(axis=1, keepdims=True).astype(F16)
    prog = tile_program({"x": x}, {"out": ((4, 1), F16)},
                        "tmp = pl.tile.create([4, 64], dtype=pl.FP16, target_memory=pl.Mem.Vec)\n"
                        "r = pl.tile.row_sum(x_t, tmp)\nout = pl.store(r, [0, 0], out)")
    check_close(prog, {"x": x}, {"out": want})
    tprog = tensor_program({"x": x}, {"out": ((4, 1), F16)}, "r = pl.tensor.row_sum(x)\nout = pl.assemble(out, r, [0, 0])")
    check_close(tprog, {"x": x}, {"out": want})


def test_fp16_col_sum_without_tmp_rounds_each_partial_sum():
    # PyPTO's rule: without a tmp tile, sequential from row 0 with every partial sum rounded to FP16, so
    # 2048 + 1 rounds back to 2048 (a tie to even) and the ones are lost
    x = np.ones((64, 32), F16)
    x[0, :] = 2048.0
    want = x[:1].copy()
    for i in range(1, 64):
        want = (want.astype(np.float64) + x[i:i + 1]).astype(F16)
    assert (want == 2048).all()
    prog = tile_program({"x": x}, {"out": ((1, 32), F16)}, "r = pl.tile.col_sum(x_t)\nout = pl.store(r, [0, 0], out)")
    check_close(prog, {"x": x}, {"out": want})


def test_int32_row_sum_wraps():
    x = np.full((2, 32), 2**30, I32)
    x[1, :] = -(2**30) - 7
    want = (x.astype(np.int64).sum(axis=1, keepdims=True) % 2**32)
    want = np.where(want >= 2**31, want - 2**32, want).astype(I32)
    prog = tile_program({"x": x}, {"out": ((2, 1), I32)},
                        "tmp = pl.tile.create([2, 32], dtype=pl.INT32, target_memory=pl.Mem.Vec)\n"
                        "r = pl.tile.row_sum(x_t, tmp)\nout = pl.store(r, [0, 0], out)")
    check_exact(prog, {"x": x}, {"out": want})


def nan_rows():
    x = R.standard_normal((4, 32)).astype(F32)
    x[0, 5] = NAN
    x[1, 0] = NAN
    x[2, 31] = NAN
    x[3, 3] = INF
    return x


def test_row_and_col_max_min_propagate_nan():
    x = nan_rows()
    prog = tile_program({"x": x}, {"rmax": ((4, 1), F32), "rmin": ((4, 1), F32), "cmax": ((1, 32), F32),
                                   "cmin": ((1, 32), F32)},
                        "tmp = pl.tile.create([4, 32], dtype=pl.FP32, target_memory=pl.Mem.Vec)\n"
                        "a = pl.tile.row_max(x_t, tmp)\nrmax = pl.store(a, [0, 0], rmax)\n"
                        "b = pl.tile.row_min(x_t, tmp)\nrmin = pl.store(b, [0, 0], rmin)\n"
                        "c = pl.tile.col_max(x_t)\ncmax = pl.store(c, [0, 0], cmax)\n"
                        "d = pl.tile.col_min(x_t)\ncmin = pl.store(d, [0, 0], cmin)")
    check_close(prog, {"x": x}, {"rmax": np.max(x, axis=1, keepdims=True), "rmin": np.min(x, axis=1, keepdims=True),
                                 "cmax": np.max(x, axis=0, keepdims=True), "cmin": np.min(x, axis=0, keepdims=True)})


def tie_rows(dtype):
    x = np.zeros((4, 32), dtype)
    x[0, [3, 7, 20]] = 5
    x[1, [0, 31]] = 5
    x[1, 10] = -5
    x[2, :] = 1                      # every element a tie
    x[3, [30, 2, 17]] = -5
    return x


@pytest.mark.parametrize("dtype", [F32, F16, I32])
def test_arg_reductions_return_the_first_index_among_ties(dtype):
    x = tie_rows(dtype)
    pln = PLN[np.dtype(dtype)]
    prog = tile_program({"x": x}, {"ramax": ((4, 1), I32), "ramin": ((4, 1), I32), "camax": ((1, 32), I32),
                                   "camin": ((1, 32), I32)},
                        f"tmp = pl.tile.create([4, 32], dtype={pln}, target_memory=pl.Mem.Vec)\n"
                        "a = pl.tile.row_argmax(x_t, tmp)\nramax = pl.store(a, [0, 0], ramax)\n"
                        "b = pl.tile.row_argmin(x_t, tmp)\nramin = pl.store(b, [0, 0], ramin)\n"
                        "c = pl.tile.col_argmax(x_t, tmp)\ncamax = pl.store(c, [0, 0], camax)\n"
                        "d = pl.tile.col_argmin(x_t, tmp)\ncamin = pl.store(d, [0, 0], camin)")
    check_exact(prog, {"x": x}, {"ramax": np.argmax(x, axis=1)[:, None].astype(I32),
                                 "ramin": np.argmin(x, axis=1)[:, None].astype(I32),
                                 "camax": np.argmax(x, axis=0)[None].astype(I32),
                                 "camin": np.argmin(x, axis=0)[None].astype(I32)})


def test_tensor_arg_reductions_ties():
    x = tie_rows(F32)
    prog = tensor_program({"x": x}, {"ramax": ((4, 1), I32), "camin": ((1, 32), I32)},
                          "a = pl.tensor.row_argmax(x)\nramax = pl.assemble(ramax, a, [0, 0])\n"
                          "b = pl.tensor.col_argmin(x)\ncamin = pl.assemble(camin, b, [0, 0])")
    check_exact(prog, {"x": x}, {"ramax": np.argmax(x, axis=1)[:, None].astype(I32),
                                 "camin": np.argmin(x, axis=0)[None].astype(I32)})


def test_row_argmax_treats_nan_as_the_maximum():
    """torch.argmax / numpy.argmax: a NaN is the maximum (first NaN's index)."""
    x = nan_rows()
    prog = tile_program({"x": x}, {"out": ((4, 1), I32)},
                        "tmp = pl.tile.create([4, 32], dtype=pl.FP32, target_memory=pl.Mem.Vec)\n"
                        "a = pl.tile.row_argmax(x_t, tmp)\nout = pl.store(a, [0, 0], out)")
    check_exact(prog, {"x": x}, {"out": np.argmax(x, axis=1)[:, None].astype(I32)})


def test_products_with_signs_and_zeros():
    x = R.uniform(0.5, 1.5, (4, 16)).astype(F32)
    x[0, 3] = -x[0, 3]
    x[1, 0] = 0.0
    x[2, :] = -1.0
    prog = tile_program({"x": x}, {"rp": ((4, 1), F32), "cp": ((1, 16), F32)},
                        "tmp = pl.tile.create([4, 16], dtype=pl.FP32, target_memory=pl.Mem.Vec)\n"
                        "a = pl.tile.row_prod(x_t, tmp)\nrp = pl.store(a, [0, 0], rp)\n"
                        "b = pl.tile.col_prod(x_t)\ncp = pl.store(b, [0, 0], cp)")
    x64 = x.astype(np.float64)
    check_close(prog, {"x": x}, {"rp": np.prod(x64, axis=1, keepdims=True).astype(F32),
                                 "cp": np.prod(x64, axis=0, keepdims=True).astype(F32)})


def test_tensor_reductions_without_keep_dim_on_int32():
    x = R.integers(-1000, 1000, (4, 32)).astype(I32)
    prog = tensor_program({"x": x}, {"s": ((4, 1), I32), "mx": ((4, 1), I32), "mn": ((1, 32), I32)},
                          "a = pl.tensor.row_sum(x)\ns = pl.assemble(s, a, [0, 0])\n"
                          "b = pl.tensor.row_max(x)\nmx = pl.assemble(mx, b, [0, 0])\n"
                          "c = pl.tensor.col_min(x)\nmn = pl.assemble(mn, c, [0, 0])")
    check_exact(prog, {"x": x}, {"s": x.sum(axis=1, keepdims=True).astype(I32),
                                 "mx": x.max(axis=1, keepdims=True), "mn": x.min(axis=0, keepdims=True)})


# == row / column broadcasts ==================================================================================
ROW_OPS = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide, "max": np.maximum,
           "min": np.minimum, "expdif": lambda x, v: np.exp(x - v)}


@pytest.mark.parametrize("op", sorted(ROW_OPS))
def test_tile_row_expand_ops(op):
    x = R.uniform(-2, 2, (8, 32)).astype(F32)
    v = R.uniform(0.5, 2, (8, 1)).astype(F32)
    v[1, 0] = -v[1, 0]
    prog = tile_program({"x": x, "v": v}, {"out": (x.shape, F32)},
                        f"r = pl.tile.row_expand_{op}(x_t, v_t)\nout = pl.store(r, [0, 0], out)")
    check_close(prog, {"x": x, "v": v}, {"out": ROW_OPS[op](x.astype(np.float64), v.astype(np.float64)).astype(F32)})


@pytest.mark.parametrize("op", sorted(ROW_OPS))
def test_tile_col_expand_ops(op):
    x = R.uniform(-2, 2, (8, 32)).astype(F32)
    v = R.uniform(0.5, 2, (1, 32)).astype(F32)
    v[0, 1] = -v[0, 1]
    prog = tile_program({"x": x, "v": v}, {"out": (x.shape, F32)},
                        f"r = pl.tile.col_expand_{op}(x_t, v_t)\nout = pl.store(r, [0, 0], out)")
    check_close(prog, {"x": x, "v": v}, {"out": ROW_OPS[op](x.astype(np.float64), v.astype(np.float64)).astype(F32)})


@pytest.mark.parametrize("op", sorted(ROW_OPS))
def test_tensor_row_and_col_expand_ops(op):
    x = R.uniform(-2, 2, (8, 32)).astype(F32)
    rv = R.uniform(0.5, 2, (8, 1)).astype(F32)
    cv = R.uniform(0.5, 2, (1, 32)).astype(F32)
    prog = tensor_program({"x": x, "rv": rv, "cv": cv}, {"ro": (x.shape, F32), "co": (x.shape, F32)},
                          f"a = pl.tensor.row_expand_{op}(x, rv)\nro = pl.assemble(ro, a, [0, 0])\n"
                          f"b = pl.tensor.col_expand_{op}(x, cv)\nco = pl.assemble(co, b, [0, 0])")
    x64 = x.astype(np.float64)
    check_close(prog, {"x": x, "rv": rv, "cv": cv}, {"ro": ROW_OPS[op](x64, rv).astype(F32),
                                                     "co": ROW_OPS[op](x64, cv).astype(F32)})


def test_plain_row_and_col_expand_broadcast_the_vector():
    x = R.uniform(-2, 2, (8, 32)).astype(F32)
    rv = R.uniform(-2, 2, (8, 1)).astype(F32)
    cv = R.uniform(-2, 2, (1, 32)).astype(F32)
    prog = tile_program({"x": x, "rv": rv, "cv": cv}, {"ro": (x.shape, F32), "co": (x.shape, F32)},
                        "a = pl.tile.row_expand(x_t, rv_t)\nro = pl.store(a, [0, 0], ro)\n"
                        "b = pl.tile.col_expand(x_t, cv_t)\nco = pl.store(b, [0, 0], co)")
    check_exact(prog, {"x": x, "rv": rv, "cv": cv}, {"ro": np.broadcast_to(rv, x.shape).astype(F32),
                                                     "co": np.broadcast_to(cv, x.shape).astype(F32)})


def test_int32_row_expand_div_truncates_and_sub_wraps():
    x = np.resize(np.array([7, -7, 13, -13, 2**31 - 1, -(2**31), 5, 0]), 8 * 32).reshape(8, 32).astype(I32)
    v = np.array([[2], [-2], [3], [-3], [1], [4], [-5], [7]], I32)
    prog = tile_program({"x": x, "v": v}, {"q": (x.shape, I32), "d": (x.shape, I32)},
                        "a = pl.tile.row_expand_div(x_t, v_t)\nq = pl.store(a, [0, 0], q)\n"
                        "b = pl.tile.row_expand_sub(x_t, v_t)\nd = pl.store(b, [0, 0], d)")
    x64, v64 = x.astype(np.int64), v.astype(np.int64)
    qq = np.abs(x64) // np.abs(v64)
    q = np.where((x64 < 0) ^ (v64 < 0), -qq, qq).astype(I32)
    d = ((x64 - v64 + 2**31) % 2**32 - 2**31).astype(I32)
    check_exact(prog, {"x": x, "v": v}, {"q": q, "d": d})


def test_bf16_row_and_col_sums_accumulate_exactly_then_round():
    """256 + 31 * 1 = 287 -> 288 in BF16; a BF16 running sum would stay at 256."""
    from .test_op_semantics_audit_helpers import BF16
    x = np.ones((4, 32), BF16)
    x[:, 0] = 256.0
    want_r = x.astype(np.float64).sum(axis=1, keepdims=True).astype(BF16)
    y = np.ones((32, 32), BF16)
    y[0] = 256.0
    want_c = y.astype(np.float64).sum(axis=0, keepdims=True).astype(BF16)
    prog = tile_program({"x": x, "y": y}, {"rs": ((4, 1), BF16), "cs": ((1, 32), BF16)},
                        "tmp = pl.tile.create([4, 32], dtype=pl.BF16, target_memory=pl.Mem.Vec)\n"
                        "a = pl.tile.row_sum(x_t, tmp)\nrs = pl.store(a, [0, 0], rs)\n"
                        "b = pl.tile.col_sum(y_t)\ncs = pl.store(b, [0, 0], cs)")
    check_close(prog, {"x": x, "y": y}, {"rs": want_r, "cs": want_c})


def test_reductions_see_only_the_valid_columns():
    x = (np.arange(64, dtype=F32).reshape(2, 32) - 40).astype(F32)
    x[0, 25] = 1000.0
    x[1, 30] = 1000.0
    outs = {"rs": ((2, 1), F32), "rm": ((2, 1), F32), "ra": ((2, 1), I32)}
    prog = tile_program({"x": x}, outs,
                        "xv = pl.load(x, [0, 0], [2, 32], valid_shape=[2, 20])\n"
                        "tmp = pl.tile.create([2, 32], dtype=pl.FP32, target_memory=pl.Mem.Vec)\n"
                        "s = pl.tile.row_sum(xv, tmp)\nrs = pl.store(s, [0, 0], rs)\n"
                        "m = pl.tile.row_max(xv, tmp)\nrm = pl.store(m, [0, 0], rm)\n"
                        "a = pl.tile.row_argmax(xv, tmp)\nra = pl.store(a, [0, 0], ra)", auto_load=False)
    v = x[:, :20]
    check_exact(prog, {"x": x}, {"rs": v.sum(axis=1, keepdims=True).astype(F32), "rm": v.max(axis=1, keepdims=True),
                                 "ra": v.argmax(axis=1)[:, None].astype(I32)})


def test_int16_row_and_col_expand_wrap():
    x = np.resize(np.array([32767, -32768, 100, -100, 30000]), 8 * 32).reshape(8, 32).astype(I16)
    rv = np.array([[1], [-1], [5000], [3], [-30000], [0], [7], [2]], I16)
    cv = np.resize(np.array([2, -3, 1, 1000]), 32).reshape(1, 32).astype(I16)
    prog = tile_program({"x": x, "rv": rv, "cv": cv}, {"ra": (x.shape, I16), "cm": (x.shape, I16)},
                        "a = pl.tile.row_expand_add(x_t, rv_t)\nra = pl.store(a, [0, 0], ra)\n"
                        "b = pl.tile.col_expand_mul(x_t, cv_t)\ncm = pl.store(b, [0, 0], cm)")

    def w16(v):
        return ((v + 2**15) % 2**16 - 2**15).astype(I16)
    x64 = x.astype(np.int64)
    check_exact(prog, {"x": x, "rv": rv, "cv": cv}, {"ra": w16(x64 + rv), "cm": w16(x64 * cv)})


@pytest.mark.parametrize("dtype", [I32, I16, F16])
def test_sel_and_sels_on_other_dtypes(dtype):
    a, b = cmp_operands(dtype)
    a = np.nan_to_num(a, nan=1.0, posinf=9.0, neginf=-9.0).astype(dtype)
    b = np.nan_to_num(b, nan=2.0, posinf=9.0, neginf=-9.0).astype(dtype)
    fill = "-3" if np.dtype(dtype).kind == "i" else "-3.5"
    prog = tile_program({"a": a, "b": b}, {"o1": (a.shape, dtype), "o2": (a.shape, dtype)},
                        "k = pl.tile.cmp(a_t, b_t, cmp_type=5)\n"
                        "tmp = pl.tile.create([1, 32], dtype=pl.UINT8, target_memory=pl.Mem.Vec)\n"
                        "r = pl.tile.sel(k, b_t, a_t, tmp)\no1 = pl.store(r, [0, 0], o1)\n"
                        f"q = pl.tile.sels(k, a_t, tmp, {fill})\no2 = pl.store(q, [0, 0], o2)")
    m = a >= b
    check_exact(prog, {"a": a, "b": b}, {"o1": np.where(m, b, a).astype(dtype),
                                         "o2": np.where(m, a, dtype(float(fill))).astype(dtype)})

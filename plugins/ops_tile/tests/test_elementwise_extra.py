"""The element-wise ops beyond plain arithmetic -- the fused three-operand ops, prelu / lrelu, the part_* ops,
cmp / sel, rem / fmod / xor and high_precision (the fused, partial, cast_compare_select, binary and unary
families): type rules and their errors, DSL round trips, machine results against numpy formulas written here,
the packed cmp / sel masks, and PyPTO's renames."""

from __future__ import annotations

import numpy as np
import pytest

import pypto.language as pl
from pypto import ir
from pypto.ir.op import tensor_ops
from pypto.ir.op import tile_ops as T
from pypto_core.interp import run_program
from pypto_core.ops.opdef import LaneCategory
from pypto_core.ops.registry import get_opdef, op_registry

from .helpers import scalar, shape_of, tensor, tile, valid_of

RNG = np.random.default_rng(14)


# -- registry: renames and removals ------------------------------------------------------------------
def test_pypto_names_replace_the_old_spellings():
    ops = op_registry().ops
    for gone in ("tile.maxs", "tile.mins", "tensor.maxs", "tensor.mins", "tensor.cmps", "tensor.relu", "tensor.rem",
                 "tensor.rems", "tensor.sel", "tensor.sels", "tensor.maximums", "tensor.minimums"):
        assert gone not in ops, gone
    for kept in ("tile.maximums", "tile.minimums", "tile.relu", "tile.rem", "tile.rems", "tile.sel", "tile.sels",
                 *(f"{f}.{n}" for f in ("tile", "tensor") for n in ("ceil", "floor", "pow", "sigmoid", "square",
                                                                     "tanh"))):
        assert kept in ops, kept


def test_signatures_are_pyptos():
    assert [k.name for k in get_opdef("tile.cmp").kwargs] == ["cmp_type"]
    assert [k.name for k in get_opdef("tensor.cmp").kwargs] == ["cmp_type"]
    for op in ("tile.div", "tile.log", "tile.recip", "tensor.div", "tensor.log", "tensor.recip", "tensor.rsqrt"):
        spec = get_opdef(op).kwarg_spec("high_precision")
        assert spec is not None and spec.default is False, op
    assert [a.name for a in get_opdef("tile.prelu").args] == ["tile", "slope", "tmp"]
    assert [a.name for a in get_opdef("tile.part_add").args] == ["src0", "src1"]
    assert [a.name for a in get_opdef("tile.addsc").args] == ["lhs", "rhs", "rhs2"]
    assert [a.name for a in get_opdef("tile.rem").args] == ["lhs", "rhs", "tmp"]
    assert get_opdef("tile.prelu").lane_category(2) is LaneCategory.SCRATCH
    assert get_opdef("tile.xor").lane_category(2) is LaneCategory.SCRATCH


# -- type rules --------------------------------------------------------------------------------------
def test_three_operand_adds_broadcast_and_promote():
    a, row, h = tile([16, 64]), tile([1, 64]), tile([16, 64], pl.FP16)
    call = T.addc(a, row, h)
    assert shape_of(call) == [16, 64] and call.type.dtype is pl.FP32
    assert T.subc(h, h, h).type.dtype is pl.FP16
    sc = T.addsc(h, scalar(pl.FP32), h)
    assert sc.type.dtype is pl.FP32  # promote(lhs, scalar, rhs2)
    assert T.subsc(h, 1.0, h).type.dtype is pl.FP32  # a float literal is FP32 (docs/dsl.md) and promotes
    assert T.subsc(h, ir.ConstFloat(1.0, pl.FP16), h).type.dtype is pl.FP16
    with pytest.raises(TypeError, match="tile.addc"):
        T.addc(a, tile([8, 64]), a)
    with pytest.raises(TypeError, match="tile.addsc: rhs2"):
        T.addsc(a, 1.0, tensor([16, 64]))


def test_fmod_and_part_rules():
    a = tile([16, 64], valid=[16, 40])
    assert T.fmod(a, tile([16, 64])).type == a.type
    assert T.fmod(a, 2.0).op.name == "tile.fmods" and T.fmods(a, 2.0).type == a.type
    part = T.part_max(a, tile([16, 64], pl.FP16))
    assert valid_of(part) == [16, 40] and part.type.dtype is pl.FP32  # valid <- src0
    with pytest.raises(TypeError, match="tile.part_add"):
        T.part_add(a, tile([8, 32]))
    with pytest.raises(TypeError, match="tile.fmods: rhs"):
        ir.create_op_call("tile.fmods", [a, a])
    t = tensor([16, 64], pl.FP16)
    assert tensor_ops.fmod(t, 2.0).type == ir.TensorType([16, 64], pl.FP32)  # tensor-scalar promotes
    assert tensor_ops.part_min(t, tensor([1, 64])).type == ir.TensorType([16, 64], pl.FP32)
    with pytest.raises(TypeError, match="tensor.part_mul: src1"):
        tensor_ops.part_mul(t, tile([16, 64]))


def test_prelu_lrelu_expands_rules():
    x = tile([16, 64], pl.FP16)
    assert T.prelu(x, tile([16, 64], pl.FP16), tile([16, 64], pl.FP16)).type == x.type
    with pytest.raises(TypeError, match="tile.prelu: slope is FP32 but the tile is FP16"):
        T.prelu(x, tile([16, 64]), x)
    with pytest.raises(TypeError, match="tile.prelu: slope must have the tile's shape"):
        T.prelu(x, tile([1, 64], pl.FP16), x)
    with pytest.raises(TypeError, match="tile.prelu: the tile is INT32"):
        T.prelu(tile([16, 64], pl.INT32), tile([16, 64], pl.INT32), x)
    assert T.lrelu(x, 0.1).type == x.type
    with pytest.raises(TypeError, match="tile.lrelu: slope"):
        T.lrelu(x, x)
    e = T.expands(tile([16, 64], pl.INT32, valid=[8, 64]), 3)
    assert e.type.dtype is pl.INT32 and valid_of(e) == [8, 64]
    assert tensor_ops.expands(tensor([4, 8], pl.FP16), scalar(pl.FP32)).type == ir.TensorType([4, 8], pl.FP16)
    with pytest.raises(TypeError, match="tile.expands: scalar"):
        T.expands(x, x)


def test_cmp_is_a_packed_predicate():
    m = T.cmp(tile([16, 100], valid=[12, 90]), tile([16, 100]), cmp_type=4)
    assert m.type.dtype is pl.UINT8 and shape_of(m) == [16, 32]  # roundup(ceil(100 / 8), 32)
    assert valid_of(m) == [12, 12]  # ceil(90 / 8)
    big = T.cmps(tile([4, 300]), 0.0)
    assert shape_of(big) == [4, 64] and valid_of(big) == [4, 38]
    n = ir.Var("n", ir.ScalarType(pl.INDEX))
    dyn = T.cmps(tile([4, n]), 0.0)
    assert ir.python_print(dyn.type.shape[1]) == "((n + 7) // 8 + 31) // 32 * 32"
    assert ir.python_print(dyn.type.valid_shape[1]) == "(n + 7) // 8"
    with pytest.raises(ValueError, match="keyword 'cmp_type' must be one of"):
        ir.create_op_call("tile.cmp", [tile([4, 8]), tile([4, 8])], {"cmp_type": 9})


def test_sels_mask_rules():
    src = tile([16, 64])
    assert T.sels(tile([16, 8], pl.UINT8), src, src, 0.0).type == src.type
    assert T.sels(tile([16, 4], pl.INT16), src, src, 0.0).type == src.type  # 8 bytes of bits per row
    with pytest.raises(TypeError, match="the mask rows hold 4 bytes but src has 64 valid columns"):
        T.sels(tile([16, 4], pl.UINT8), src, src, 0.0)
    with pytest.raises(TypeError, match="tile.sels: the mask is BOOL"):
        T.sels(tile([16, 64], pl.BOOL), src, src, 0.0)
    with pytest.raises(TypeError, match="the mask has 8 rows but src has 16 valid rows"):
        T.sels(tile([8, 32], pl.UINT8), src, src, 0.0)


def test_high_precision_and_log_rules():
    with pytest.raises(TypeError, match="tile.div: high_precision=True needs FP16 or FP32"):
        T.div(tile([4, 8], pl.INT32), tile([4, 8], pl.INT32), high_precision=True)
    with pytest.raises(TypeError, match="tile.log: the operand is BF16"):
        T.log(tile([4, 8], pl.BF16))
    with pytest.raises(TypeError, match="tensor.div: high_precision=True needs float operands"):
        tensor_ops.div(tensor([4, 8], pl.INT32), tensor([4, 8], pl.INT32), high_precision=True)
    assert tensor_ops.exp(tensor([4, 8], pl.INT32)).type.dtype is pl.FP32  # exp of an int tensor is FP32
    assert tensor_ops.rsqrt(tensor([4, 8], pl.INT16), high_precision=True).type.dtype is pl.FP32


def test_tensor_maximum_and_cmp_take_a_scalar():
    t = tensor([8, 16], pl.FP16)
    assert tensor_ops.maximum(t, 0.0).op.name == "tensor.maximum"
    assert tensor_ops.maximum(t, scalar(pl.FP32)).type.dtype is pl.FP32
    c = tensor_ops.cmp(t, scalar(pl.FP16), cmp_type=2)
    assert c.op.name == "tensor.cmp" and c.type == ir.TensorType([8, 16], pl.FP16)  # 0 / 1, not a packed mask
    assert tensor_ops.cmp(t, 1.0).type.dtype is pl.FP32  # promote(lhs, FP32 literal)
    assert tensor_ops.cmp(t, tensor([1, 16])).type == ir.TensorType([8, 16], pl.FP32)


# -- DSL -----------------------------------------------------------------------------------------------
PARAMS = "a: pl.Tensor[[8, 16], pl.FP32], v: pl.Tile[[8, 16], pl.FP32, pl.Mem.Vec]"


def _parse_error(body: str) -> str:
    from .helpers import program

    with pytest.raises(Exception) as info:
        pl.parse(program(body, PARAMS))
    return str(info.value)


def test_tensor_selects_say_to_load_tiles():
    assert "PyPTO has no tensor.sels: load the tensors into tiles (pl.load)" in \
        _parse_error("x = pl.tensor.sels(a, a, 0.0)")
    assert "PyPTO has no tensor.sel" in _parse_error("x = pl.sel(a, a, a)")
    # rem / rems: the remainder with the divisor's sign is a tile op; fmod is the tensor one (the dividend's sign).
    for text in ("x = pl.tensor.rem(a, a)", "x = pl.rem(a, 3.0)", "x = pl.rems(a, 2.0)", "x = pl.tensor.rems(a, 2.0)"):
        assert "pl.fmod / pl.fmods, with the dividend's sign, take tensors" in _parse_error(text), text
    assert "works on tiles" in _parse_error("x = pl.prelu(a, a, a)")
    assert "got an unexpected keyword argument 'cmp_mode'" in _parse_error("x = pl.cmp(v, v, cmp_mode=1)")


@pytest.mark.parametrize("body,printed", [
    ("x = pl.tile.maxs(v, 0.5)", "pl.tile.maximums(v, 0.5)"),
    ("x = pl.relu(a)", "pl.tensor.maximum(a, 0.0)"),
    ("x = pl.rem(v, 2.0)", "pl.tile.rems(v, 2.0)"),
    ("x = pl.cmps(a, 0.0, cmp_type=3)", "pl.tensor.cmp(a, 0.0, cmp_type=3)"),
    ("x = pl.tile.part_add(v, v)", "pl.tile.part_add(v, v)"),
    ("x = pl.div(a, a, high_precision=True)", "pl.tensor.div(a, a, high_precision=True)"),
])
def test_printed_text_is_pyptos(body: str, printed: str):
    from .helpers import program

    parsed = pl.parse(program(body, PARAMS))
    text = ir.python_print(parsed)
    assert printed in text
    ir.assert_structural_equal(parsed, pl.parse(text))


# -- the machine -----------------------------------------------------------------------------------
KERNEL = """
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, a: pl.Tensor[[{R}, {C}], pl.{D}], b: pl.Tensor[[{R}, {C}], pl.{D}], c: pl.Tensor[[{R}, {C}], pl.{D}],
             out: pl.Out[pl.Tensor[[{R}, {C}], pl.{O}]]) -> pl.Tensor[[{R}, {C}], pl.{O}]:
        x = pl.load(a, [0, 0], [{R}, {C}])
        y = pl.load(b, [0, 0], [{R}, {C}])
        z = pl.load(c, [0, 0], [{R}, {C}])
        t8 = pl.tile.create([1, 32], dtype=pl.UINT8, target_memory=pl.Mem.Vec)
        r = {EXPR}
        out = pl.store(r, [0, 0], out)
        return out
"""

_F = {"FP32": np.float32, "FP16": np.float16, "INT32": np.int32, "INT16": np.int16}


def _run(expr: str, a: np.ndarray, b: np.ndarray, c: np.ndarray, out_dtype: str | None = None) -> np.ndarray:
    d = {v: k for k, v in _F.items()}[a.dtype.type]
    o = out_dtype or d
    text = KERNEL.format(R=a.shape[0], C=a.shape[1], D=d, O=o, EXPR=expr)
    out = np.zeros(a.shape, _F[o])
    return run_program(pl.parse(text), {"a": a, "b": b, "c": c, "out": out})["out"]


def _abc(dtype=np.float32, shape=(8, 64)):
    if np.issubdtype(dtype, np.integer):
        return tuple(RNG.integers(-50, 50, shape).astype(dtype) for _ in range(3))
    return tuple(RNG.standard_normal(shape).astype(dtype) for _ in range(3))


@pytest.mark.parametrize("expr,formula", [
    ("pl.addc(x, y, z)", lambda a, b, c: a + b + c),
    ("pl.subc(x, y, z)", lambda a, b, c: a - b + c),
    ("pl.addsc(x, 1.5, z)", lambda a, b, c: a + 1.5 + c),
    ("pl.subsc(x, 1.5, z)", lambda a, b, c: a - 1.5 + c),
    ("pl.fmod(x, y)", lambda a, b, c: np.fmod(a, b)),
    ("pl.fmods(x, 0.75)", lambda a, b, c: np.fmod(a, np.float32(0.75))),
    ("pl.tile.maximums(x, 0.25)", lambda a, b, c: np.maximum(a, 0.25)),
    ("pl.tile.mins(x, 0.25)", lambda a, b, c: np.minimum(a, 0.25)),
    ("pl.lrelu(x, 0.1)", lambda a, b, c: np.where(a > 0, a, a * np.float32(0.1))),
    ("pl.prelu(x, y, z)", lambda a, b, c: np.where(a > 0, a, a * b)),
    ("pl.part_add(x, y)", lambda a, b, c: a + b),
    ("pl.part_mul(x, y)", lambda a, b, c: a * b),
    ("pl.expands(x, 2.5)", lambda a, b, c: np.full_like(a, 2.5)),
    ("pl.tile.sel(pl.cmp(x, y, cmp_type=2), x, z, t8)", lambda a, b, c: np.where(a < b, a, c)),
    ("pl.tile.sels(pl.cmps(x, 0.0, cmp_type=5), y, t8, -1.0)", lambda a, b, c: np.where(a >= 0, b, -1.0)),
    ("pl.div(x, y, high_precision=True)", lambda a, b, c: a / b),
])
def test_fp32_results_match_numpy(expr, formula):
    a, b, c = _abc()
    got = _run(expr, a, b, c)
    np.testing.assert_allclose(got, formula(a, b, c).astype(np.float32), rtol=1e-6, atol=1e-6)


def test_integer_fmod_keeps_the_dividend_sign_and_zero_divisor_gives_zero():
    a = np.array([[-7, 7, -8, 5, 0, 3, 9, -1]] * 4, np.int32)
    b = np.array([[2, -2, 3, 0, 4, -3, 2, 1]] * 4, np.int32)
    got = _run("pl.fmod(x, y)", a, b, b)
    want = np.array([[-1, 1, -2, 0, 0, 0, 1, 0]] * 4, np.int32)
    np.testing.assert_array_equal(got, want)


def test_part_ops_take_the_valid_source_where_only_one_is_valid():
    text = """
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, a: pl.Tensor[[8, 32], pl.FP32], b: pl.Tensor[[8, 32], pl.FP32],
             out: pl.Out[pl.Tensor[[8, 32], pl.FP32]]) -> pl.Tensor[[8, 32], pl.FP32]:
        x = pl.load(a, [0, 0], [8, 32])
        y = pl.load(b, [0, 0], [8, 32], valid_shape=[8, 20])
        r = pl.tile.part_max(x, y)
        out = pl.store(r, [0, 0], out)
        return out
"""
    a, b = (RNG.standard_normal((8, 32)).astype(np.float32) for _ in range(2))
    got = run_program(pl.parse(text), {"a": a, "b": b, "out": np.zeros_like(a)})["out"]
    want = a.copy()
    want[:, :20] = np.maximum(a[:, :20], b[:, :20])
    np.testing.assert_array_equal(got, want)


def test_packed_mask_bits_are_lsb_first():
    text = """
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, a: pl.Tensor[[2, 40], pl.FP32], out: pl.Out[pl.Tensor[[2, 32], pl.UINT8]]) -> pl.Tensor[[2, 32], pl.UINT8]:
        x = pl.load(a, [0, 0], [2, 40])
        m = pl.tile.cmps(x, 0.0, cmp_type=4)
        out = pl.store(m, [0, 0], out)
        return out
"""
    a = RNG.standard_normal((2, 40)).astype(np.float32)
    got = run_program(pl.parse(text), {"a": a, "out": np.zeros((2, 32), np.uint8)})["out"]
    bits = a > 0
    want = np.zeros((2, 5), np.uint8)
    for r in range(2):
        for i in range(40):
            want[r, i // 8] |= np.uint8(int(bits[r, i]) << (i % 8))
    np.testing.assert_array_equal(got[:, :5], want)  # the valid bytes: ceil(40 / 8)


def test_sels_reads_a_mask_of_another_carrier_dtype():
    """An INT16 mask (e.g. packed by another kernel) is read as its bytes' bits (docs/reference/ops.md, tile.sels:
    any 8/16/32-bit mask carrier)."""
    text = """
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, m: pl.Tensor[[4, 16], pl.INT16], a: pl.Tensor[[4, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[4, 64], pl.FP32]]) -> pl.Tensor[[4, 64], pl.FP32]:
        mask = pl.load(m, [0, 0], [4, 16])
        x = pl.load(a, [0, 0], [4, 64])
        t8 = pl.tile.create([1, 32], dtype=pl.UINT8, target_memory=pl.Mem.Vec)
        r = pl.tile.sels(mask, x, t8, 7.0)
        out = pl.store(r, [0, 0], out)
        return out
"""
    m = RNG.integers(-32768, 32767, (4, 16)).astype(np.int16)
    a = RNG.standard_normal((4, 64)).astype(np.float32)
    got = run_program(pl.parse(text), {"m": m, "a": a, "out": np.zeros_like(a)})["out"]
    raw = m.astype("<i2").tobytes()
    want = np.empty_like(a)
    for r in range(4):
        row = raw[r * 32:(r + 1) * 32]
        for i in range(64):
            bit = (row[i // 8] >> (i % 8)) & 1
            want[r, i] = a[r, i] if bit else 7.0
    np.testing.assert_array_equal(got, want)


def test_tensor_cmp_holds_zero_and_one_in_the_promoted_dtype():
    text = """
import pypto.language as pl

@pl.program
class P:
    @pl.function
    def main(self, a: pl.Tensor[[8, 16], pl.FP16], b: pl.Tensor[[8, 16], pl.FP16]) -> pl.Tensor[[8, 16], pl.FP16]:
        with pl.at(level=pl.Level.CORE_GROUP):
            r = pl.cmp(a, b, cmp_type=1)
        return r
"""
    a = RNG.integers(0, 3, (8, 16)).astype(np.float16)
    b = RNG.integers(0, 3, (8, 16)).astype(np.float16)
    got = run_program(pl.parse(text), {"a": a, "b": b})["return"]
    assert got.dtype == np.float16
    np.testing.assert_array_equal(got, (a != b).astype(np.float16))


@pytest.mark.parametrize("dtype", ["INT4", "INT8", "INT16", "BOOL"])
@pytest.mark.parametrize("op", ["sqrt", "exp"])
def test_a_float_op_of_a_small_int_tensor_computes_in_fp32(dtype, op):
    # numpy computes sqrt of an INT4 / INT8 array in FP16, so the tensor op would give 2.44921875 for sqrt(6)
    # where its tile form (a cast to FP32, then sqrt) gives 2.4494898; the same for exp of a BOOL tensor
    # (2.71875 for e).
    import numpy as np

    import pypto.language as pl
    from pypto_core.interp import Machine

    text = f"""
import pypto.language as pl

@pl.function
def main(x: pl.Tensor[[4, 16], pl.{dtype}]) -> pl.Tensor[[4, 16], pl.FP32]:
    y = pl.{op}(pl.abs(x))
    return y
"""
    x = (np.arange(64) % (2 if dtype == "BOOL" else 7)).reshape(4, 16)
    import ml_dtypes

    arr = x.astype(ml_dtypes.int4 if dtype == "INT4" else np.bool_ if dtype == "BOOL" else getattr(np, dtype.lower()))
    out = Machine(pl.parse(text)).run(inputs={"x": arr})
    np.testing.assert_array_equal(np.asarray(out), getattr(np, op)(x.astype(np.float32)))

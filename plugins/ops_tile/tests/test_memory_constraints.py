"""Operand memory spaces are registry data (`input_memory`: docs/plugins.md, OpDef fields), not type errors.

InferTileMemorySpace places operands and TileMemoryInferred reports what is misplaced, so a deducer
accepts an operand in any space. tile.load / tile.create without target_memory defer their space
(printed `target_memory=None`). The tile matmul ops (the matmul family) are typed and evaluated here.
"""

from __future__ import annotations

import numpy as np
import pytest

import pypto.language as pl
from pypto import ir
from pypto.ir.op import tile_ops as T
from pypto_core.interp import make_inputs, run_program
from pypto_core.ir.utils import flatten_to_stmts
from pypto_core.ops.opdef import Effect
from pypto_core.ops.registry import get_opdef, op_registry

from .helpers import shape_of, tensor, tile, valid_of

Vec, Mat, Left, Right, Acc, Bias = pl.Mem.Vec, pl.Mem.Mat, pl.Mem.Left, pl.Mem.Right, pl.Mem.Acc, pl.Mem.Bias


# -- input_memory facts ----------------------------------------------------------------------------
def test_representative_input_memory():
    assert get_opdef("tile.add").input_memory == {0: (Vec,), 1: (Vec,)}
    assert get_opdef("tile.store").input_memory == {0: (Vec, Acc)}  # Vec preferred
    assert get_opdef("tile.matmul").input_memory == {0: (Left,), 1: (Right,)}
    assert get_opdef("tile.matmul_acc").input_memory == {0: (Acc,), 1: (Left,), 2: (Right,)}
    assert get_opdef("tile.row_sum").input_memory == {0: (Vec,), 1: (Vec,)}
    assert get_opdef("tile.read").input_memory == {0: (Vec,)}
    assert get_opdef("tile.rsqrt").accepted_spaces(1) == (Vec,)  # the optional tmp too
    assert get_opdef("tile.move").accepted_spaces(0) is None


def _vec(*indices: int) -> dict[int, tuple[pl.Mem, ...]]:
    return {i: (Vec,) for i in indices}


_BIN, _ONE = _vec(0, 1), _vec(0)
_PRODUCT = {0: (Left,), 1: (Right,)}
_ACCUMULATE = {0: (Acc,), 1: (Left,), 2: (Right,)}
_BIASED = {0: (Left,), 1: (Right,), 2: (Bias,)}

# The spaces PyPTO's ops accept per operand, written out by hand on this registry's argument lists (the
# registered ones are the "input memory" rows of docs/reference/ops.md).
EXPECTED_INPUT_MEMORY: dict[str, dict[int, tuple[pl.Mem, ...]]] = {
    # Element-wise, tile with tile / with a scalar / unary and cast.
    **{f"tile.{n}": _BIN for n in ("add", "sub", "mul", "div", "maximum", "minimum", "and", "or", "shl", "shr")},
    "tile.rem": _vec(0, 1, 2), "tile.xor": _vec(0, 1, 2), "tile.rems": _vec(0, 2), "tile.xors": _vec(0, 2),
    **{f"tile.{n}": _ONE for n in ("adds", "subs", "muls", "divs", "ands", "ors", "shls",
                                   "shrs", "maximums", "minimums", "fmods", "lrelu", "expands")},
    **{f"tile.{n}": _BIN for n in ("fmod", "part_add", "part_max", "part_min", "part_mul")},
    "tile.addc": _vec(0, 1, 2), "tile.subc": _vec(0, 1, 2), "tile.addsc": _vec(0, 2), "tile.subsc": _vec(0, 2),
    "tile.prelu": _vec(0, 1, 2),
    **{f"tile.{n}": _ONE for n in ("abs", "cast", "cos", "exp", "log", "neg", "not", "recip", "relu", "sin",
                                   "sqrt")},
    "tile.rsqrt": _BIN,
    # Compare / select.
    "tile.cmp": _BIN, "tile.cmps": _ONE, "tile.sel": _vec(0, 1, 2, 3), "tile.sels": _vec(0, 1, 2),
    # Broadcasts and reductions (col_max / col_min: this registry's optional tmp is Vec like col_sum's).
    **{f"tile.{d}_expand_{n}": _BIN for d in ("row", "col") for n in ("add", "sub", "mul", "div")},
    **{f"tile.{d}_expand{s}": _BIN for d in ("row", "col") for s in ("", "_max", "_min", "_expdif")},
    "tile.row_expand_add": _vec(0, 1, 2),  # its optional tmp, which PyPTO has, is registered
    **{f"tile.{n}": _BIN for n in ("row_prod", "row_argmin", "col_argmax", "col_argmin")},
    "tile.col_prod": _ONE,
    **{f"tile.{n}": _BIN for n in ("row_sum", "row_max", "row_min", "row_argmax", "col_sum", "col_max",
                                   "col_min")},
    # Matmul.
    "tile.matmul": _PRODUCT, "tile.matmul_acc": _ACCUMULATE, "tile.matmul_bias": _BIASED,
    "tile.gemv": _PRODUCT, "tile.gemv_acc": _ACCUMULATE, "tile.gemv_bias": _BIASED,
    "tile.batch_matmul": _PRODUCT, "tile.batch_matmul_acc": _ACCUMULATE,
    # Memory.
    "tile.store": {0: (Vec, Acc)}, "tile.read": _ONE, "tile.write": _ONE,
    # Gather / scatter.
    "tile.gather": _vec(0, 1, 2), "tile.gatherb": _BIN, "tile.scatter": _vec(0, 1, 2),
    "tile.scatter_update": _vec(0, 1, 2), "tile.gather_compare": _vec(0, 2),
    "tile.gather_mask": _ONE, "tile.scatter_mask": _BIN, "tile.mscatter": _BIN,
    # Sort.
    "tile.sort32": _BIN, "tile.mrgsort_format1": _ONE, "tile.mrgsort_format2": _vec(0, 1, 2, 3, 4),
    # Views and padding.
    "tile.concat": _BIN, "tile.fillpad": _ONE, "tile.fillpad_inplace": _ONE, "tile.fillpad_expand": _ONE,
    # MX matmul.
    "tile.matmul_mx": {0: (Left,), 1: (pl.Mem.LeftScale,), 2: (Right,), 3: (pl.Mem.RightScale,)},
    "tile.matmul_mx_acc": {0: (Acc,), 1: (Left,), 2: (pl.Mem.LeftScale,), 3: (Right,), 4: (pl.Mem.RightScale,)},
    "tile.matmul_mx_bias": {0: (Left,), 1: (pl.Mem.LeftScale,), 2: (Right,), 3: (pl.Mem.RightScale,), 4: (Bias,)},
    # No space from PyPTO: their family's rule (element-wise -> Vec).
    **{f"tile.{n}": _ONE for n in ("floor", "ceil", "tanh", "sigmoid", "square")},
    "tile.pow": _BIN,
}

# Ops with operands PyPTO puts no space constraint on.
UNCONSTRAINED = {
    "tile.load", "tile.move", "tile.extract", "tile.full", "tile.create", "tile.ci", "tile.random", "tile.slice",
    "tile.reshape", "tile.reinterpret_view", "tile.transpose", "tile.transpose_view", "tile.set_validshape",
    "tile.assemble", "tile.gather_row", "tile.aiv_shard", "tile.aic_gather", "tile.tpush_to_aiv",
    "tile.tpush_to_aic", "tile.mgather", "tile.alloc", "tile.tri", "tile.tget_scale_addr",
}


def _tile_ops_with_operands() -> list[str]:
    return sorted(n for n, d in op_registry().ops.items() if n.startswith("tile.") and d.args)


def test_every_tile_op_with_operands_is_classified():
    ops = _tile_ops_with_operands()
    assert [n for n in ops if (n in EXPECTED_INPUT_MEMORY) == (n in UNCONSTRAINED)] == []
    assert sorted(set(EXPECTED_INPUT_MEMORY) | UNCONSTRAINED) == ops


@pytest.mark.parametrize("name", _tile_ops_with_operands())
def test_input_memory_is_the_expected_spaces(name: str):
    assert dict(get_opdef(name).input_memory) == EXPECTED_INPUT_MEMORY.get(name, {})


def test_every_declaration_names_spaces_of_an_existing_operand():
    for name, opdef in op_registry().ops.items():
        for index, spaces in opdef.input_memory.items():
            assert 0 <= index < len(opdef.args) or opdef.variadic, f"{name}: input_memory on no operand {index}"
            assert isinstance(spaces, tuple) and spaces, f"{name}: operand {index} accepts no space"
            assert all(isinstance(s, pl.Mem) for s in spaces) and len(set(spaces)) == len(spaces), name


# -- deduction does not reject a space -------------------------------------------------------------
def test_operands_in_other_spaces_type_check():
    call = T.matmul(tile([16, 64], pl.FP16, Mat), tile([64, 32], pl.FP16, Mat))
    assert call.type == ir.TileType([16, 32], pl.FP32, memory_space=Acc)
    acc = tile([16, 32], pl.FP32, Vec)
    assert T.matmul_acc(acc, tile([16, 64], pl.FP16, Mat), tile([64, 32], pl.FP16, Vec)).type == acc.type
    assert T.add(tile([16, 64], mem=Mat), tile([16, 64], mem=Mat)).type.memory_space is Vec  # the output rule
    out = tensor([64, 64])
    assert T.store(tile([16, 64], mem=Mat), [0, 0], out).type == out.type
    assert T.row_sum(tile([16, 64], mem=Mat), tile([16, 64], mem=Mat)).type.dtype is pl.FP32
    assert T.read(tile([16, 64], mem=Acc), [0, 0]).type == ir.ScalarType(pl.FP32)


def test_shape_and_dtype_checks_stay():
    with pytest.raises(TypeError, match="inner dims differ"):
        T.matmul(tile([16, 32], pl.FP16, Mat), tile([64, 16], pl.FP16, Mat))
    with pytest.raises(TypeError, match="lhs is FP16 but rhs is FP32"):
        T.matmul(tile([16, 64], pl.FP16, Mat), tile([64, 16], pl.FP32, Mat))
    with pytest.raises(TypeError, match="the tile is FP16 but the target is FP32"):
        T.store(tile([16, 64], pl.FP16, Mat), [0, 0], tensor([64, 64]))


# -- deferred target_memory ------------------------------------------------------------------------
DEFERRED = """
import pypto.language as pl

@pl.function
def main(x: pl.Tensor[[64, 64], pl.FP32]):
    t = pl.tile.load(x, [0, 0], [16, 64], [16, 64], target_memory=None)
    c = pl.tile.create([16, 64], dtype=pl.FP32, target_memory=None)
    v = pl.tile.load(x, [0, 0], [16, 64])
    w = pl.tile.create([16, 64], dtype=pl.FP32)
"""


def _calls(function: ir.Function) -> list[ir.Call]:
    return [s.value for s in flatten_to_stmts(function.body)]


def test_target_memory_none_defers_the_space():
    load, create, vec_load, vec_create = _calls(pl.parse(DEFERRED))
    for call in (load, create):
        assert "target_memory" not in call.kwargs and call.type.memory_space is None
    assert load.type == ir.TileType([16, 64], pl.FP32)
    # Without the keyword the DSL keeps PyPTO's default.
    for call in (vec_load, vec_create):
        assert call.kwargs["target_memory"] is Vec and call.type.memory_space is Vec


def test_deferred_calls_print_none_and_reparse():
    parsed = pl.parse(DEFERRED)
    text = ir.python_print(parsed)
    assert "pl.tile.load(x, [0, 0], [16, 64], [16, 64], target_memory=None)" in text
    assert "pl.tile.create([16, 64], dtype=pl.FP32, target_memory=None)" in text
    ir.assert_structural_equal(parsed, pl.parse(text))


def test_deferred_kwarg_declarations():
    for name, choices in (("tile.load", (Vec, Mat)), ("tile.create", ())):
        opdef = get_opdef(name)
        spec = opdef.kwarg_spec("target_memory")
        assert spec.deferred and spec.default is None and spec.choices == choices
        assert opdef.output_memory.from_kwarg == "target_memory" and opdef.output_memory.kwarg_default is None
        assert opdef.retarget_kwarg is spec
    assert T.load(tensor([64, 64]), [0, 0], [16, 64], target_memory=None).type.memory_space is None
    column = T.load(tensor([64, 1]), [0, 0], [16, 1], target_memory=None)
    assert column.type.effective_view().blayout is pl.TileLayout.col_major  # the unplaced column layout


def test_sync_ops_state_their_lane_through_core_type():
    for name in ("system.sync_set", "system.sync_wait", "system.syncall"):
        assert get_opdef(name).lane_kwarg == "core_type"


# -- the matmul family: types ----------------------------------------------------------------------
def test_matmul_bias_type():
    call = T.matmul_bias(tile([16, 64], pl.FP16, Left), tile([64, 32], pl.FP16, Right), tile([1, 32], pl.FP32, Bias))
    assert call.type == ir.TileType([16, 32], pl.FP32, memory_space=Acc)
    ints = T.matmul_bias(tile([16, 64], pl.INT8, Left), tile([64, 32], pl.INT8, Right), tile([1, 32], pl.INT32, Bias))
    assert ints.type.dtype is pl.INT32
    with pytest.raises(TypeError, match="bias is FP16 but the accumulator is FP32"):
        T.matmul_bias(tile([16, 64], pl.FP16, Left), tile([64, 32], pl.FP16, Right), tile([1, 32], pl.FP16, Bias))
    with pytest.raises(TypeError, match=r"bias must be one \[1, N\] row"):
        T.matmul_bias(tile([16, 64], pl.FP16, Left), tile([64, 32], pl.FP16, Right), tile([2, 32], pl.FP32, Bias))


def test_gemv_types():
    lhs, rhs = tile([1, 64], pl.FP16, Left), tile([64, 32], pl.FP16, Right, valid=[64, 30])
    call = T.gemv(lhs, rhs)
    assert shape_of(call) == [16, 32] and valid_of(call) == [1, 30] and call.type.dtype is pl.FP32
    view = call.type.effective_view()
    assert call.type.memory_space is Acc and (view.blayout, view.slayout, view.fractal) == (
        pl.TileLayout.col_major, pl.TileLayout.row_major, 1024)
    assert dict(call.kwargs) == {} and T.gemv(lhs, rhs, acc_phase="partial").kwargs["acc_phase"] == "partial"
    acc = ir.Var("acc", call.type)
    summed = T.gemv_acc(acc, lhs, rhs, acc_phase="final")
    assert summed.type == call.type and summed.kwargs["acc_phase"] == "final"
    assert T.gemv_bias(lhs, rhs, tile([1, 32], pl.FP32, Bias)).type == call.type
    assert T.gemv(tile([1, 64], pl.INT8, Left), tile([64, 32], pl.INT8, Right)).type.dtype is pl.INT32


def test_gemv_checks():
    rhs = tile([64, 32], pl.FP16, Right)
    with pytest.raises(TypeError, match=r"lhs must be one row \[1, K\]"):
        T.gemv(tile([2, 64], pl.FP16, Left), rhs)
    with pytest.raises(TypeError, match="operands must be one of INT8, FP16, BF16, FP32"):
        T.gemv(tile([1, 64], pl.INT32, Left), tile([64, 32], pl.INT32, Right))
    with pytest.raises(ValueError, match="keyword 'acc_phase' must be one of"):
        T.gemv(tile([1, 64], pl.FP16, Left), rhs, acc_phase="last")
    with pytest.raises(TypeError, match="valid region"):
        T.gemv_acc(tile([16, 32], pl.FP32, Acc), tile([1, 64], pl.FP16, Left), rhs)


def test_batch_matmul_types():
    lhs, rhs = tile([2, 16, 64], pl.FP16, Left), tile([1, 64, 32], pl.FP16, Right)
    call = T.batch_matmul(lhs, rhs)
    assert call.type == ir.TileType([2, 16, 32], pl.FP32, memory_space=Acc)
    assert shape_of(T.batch_matmul(lhs, tile([64, 32], pl.FP16, Right))) == [2, 16, 32]  # a shared rhs
    acc = tile([2, 16, 32], pl.FP32, Acc)
    assert T.batch_matmul_acc(acc, lhs, rhs).type == acc.type
    with pytest.raises(TypeError, match="do not broadcast"):
        T.batch_matmul(lhs, tile([3, 64, 32], pl.FP16, Right))
    with pytest.raises(TypeError, match="acc is"):
        T.batch_matmul_acc(tile([3, 16, 32], pl.FP32, Acc), lhs, rhs)


def test_matmul_family_effects_and_memory():
    for name in ("tile.matmul_bias", "tile.gemv", "tile.gemv_acc", "tile.gemv_bias", "tile.batch_matmul",
                 "tile.batch_matmul_acc"):
        opdef = get_opdef(name)
        assert opdef.output_memory.fixed is Acc
        accumulates = name.endswith("_acc")
        assert (opdef.arg_effect(0, {}) is Effect.READ_WRITE) == accumulates
        assert all(opdef.arg_effect(i, {}) is Effect.READ for i in range(1, len(opdef.args)))


# -- the matmul family: numpy semantics ------------------------------------------------------------
HEADER = """
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main({params}, out: pl.Out[pl.Tensor[{out}, pl.{A}]]) -> pl.Tensor[{out}, pl.{A}]:
"""


def _placed(name: str, tensor_name: str, shape: list[int], space: str) -> str:
    """Load a whole tensor into Mat, then move it to its cube space."""
    return (f"{name} = pl.move(pl.load({tensor_name}, {[0] * len(shape)}, {shape}, target_memory=pl.Mem.Mat), "
            f"target_memory=pl.Mem.{space})")


def _run(params: dict[str, tuple[list[int], str, str]], body: list[str], out: list[int], dtype: str,
         seed: int) -> tuple[dict, np.ndarray]:
    """params: tensor name -> (shape, dtype, the space its tile is moved to)."""
    acc = "INT32" if dtype == "INT8" else "FP32"
    signature = ", ".join(f"{n}_t: pl.Tensor[{s}, pl.{d.format(D=dtype, A=acc)}]" for n, (s, d, _) in params.items())
    lines = [_placed(n, f"{n}_t", s, space) for n, (s, _, space) in params.items()]
    lines += body + [f"out = pl.store(c, {[0] * len(out)}, out)", "return out"]
    text = HEADER.format(params=signature, out=out, A=acc) + "".join(f"        {line}\n" for line in lines)
    program = pl.parse(text)
    inputs = make_inputs(program.get_function("main"), seed=seed)
    got = run_program(program, inputs)["out"]
    assert got.dtype == (np.int32 if dtype == "INT8" else np.float32)
    wide = {n.removesuffix("_t"): v.astype(np.int64 if dtype == "INT8" else np.float64) for n, v in inputs.items()}
    return wide, got


def _assert_close(got: np.ndarray, want: np.ndarray, dtype: str) -> None:
    if dtype == "INT8":
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)


DTYPES = ["FP32", "INT8"]


@pytest.mark.parametrize("dtype", DTYPES)
def test_matmul_bias_evaluates(dtype: str):
    x, got = _run({"a": ([16, 64], "{D}", "Left"), "b": ([64, 32], "{D}", "Right"), "bias": ([1, 32], "{A}", "Bias")},
                  ["c = pl.matmul_bias(a, b, bias)"], [16, 32], dtype, seed=3)
    _assert_close(got, x["a"] @ x["b"] + x["bias"], dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_gemv_evaluates(dtype: str):
    x, got = _run({"a": ([1, 64], "{D}", "Left"), "b": ([64, 32], "{D}", "Right")},
                  ["c = pl.gemv(a, b)"], [1, 32], dtype, seed=4)
    _assert_close(got, x["a"] @ x["b"], dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_gemv_acc_evaluates(dtype: str):
    x, got = _run({"a": ([1, 64], "{D}", "Left"), "b": ([64, 32], "{D}", "Right"), "a2": ([1, 64], "{D}", "Left"),
                   "b2": ([64, 32], "{D}", "Right")},
                  ["g = pl.gemv(a, b, acc_phase='partial')", "c = pl.gemv_acc(g, a2, b2, acc_phase='final')"],
                  [1, 32], dtype, seed=5)
    _assert_close(got, x["a"] @ x["b"] + x["a2"] @ x["b2"], dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_gemv_bias_evaluates(dtype: str):
    x, got = _run({"a": ([1, 64], "{D}", "Left"), "b": ([64, 32], "{D}", "Right"), "bias": ([1, 32], "{A}", "Bias")},
                  ["c = pl.gemv_bias(a, b, bias)"], [1, 32], dtype, seed=6)
    _assert_close(got, x["a"] @ x["b"] + x["bias"], dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_batch_matmul_evaluates(dtype: str):
    x, got = _run({"a": ([2, 16, 64], "{D}", "Left"), "b": ([1, 64, 32], "{D}", "Right")},
                  ["c = pl.batch_matmul(a, b)"], [2, 16, 32], dtype, seed=7)
    _assert_close(got, np.matmul(x["a"], x["b"]), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_batch_matmul_acc_evaluates(dtype: str):
    x, got = _run({"a": ([2, 16, 64], "{D}", "Left"), "b": ([2, 64, 32], "{D}", "Right"),
                   "a2": ([2, 16, 64], "{D}", "Left"), "b2": ([64, 32], "{D}", "Right")},
                  ["g = pl.batch_matmul(a, b)", "c = pl.tile.batch_matmul_acc(g, a2, b2)"], [2, 16, 32], dtype, seed=8)
    _assert_close(got, np.matmul(x["a"], x["b"]) + np.matmul(x["a2"], x["b2"]), dtype)


GEMV_ROWS = """
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main(a: pl.Tensor[[1, 64], pl.FP32], b: pl.Tensor[[64, 32], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        l = pl.move(pl.load(a, [0, 0], [1, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
        r = pl.move(pl.load(b, [0, 0], [64, 32], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        c = pl.gemv(l, r)
        out = pl.store(c, [0, 0], out, [16, 32])
        return out
"""


def test_gemv_rows_past_the_first_are_poison():
    program = pl.parse(GEMV_ROWS)
    inputs = make_inputs(program.get_function("main"), seed=9)
    got = run_program(program, inputs)["out"]
    np.testing.assert_allclose(got[0], (inputs["a"].astype(np.float64) @ inputs["b"])[0], rtol=1e-5, atol=1e-4)
    assert np.isnan(got[1:]).all()

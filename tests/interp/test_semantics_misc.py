"""Views, casts with rounding modes, gather / scatter, generators, tensor write-through, and the
error for an op without semantics."""

import ml_dtypes
import numpy as np
import pytest

import pypto.language as pl
from pypto_core.interp import Machine, MachineError, make_inputs, run_program
from pypto_core.ir import expr as E
from pypto_core.ir import stmt as S
from pypto_core.ir.dtypes import DataType
from pypto_core.ir.function import Function, Program
from pypto_core.ir.types import ScalarType
from pypto_core.ops.opdef import OpDef
from pypto_core.ops.registry import op_registry
from pypto_plugins.ops_tile.common.conversion import convert

VIEWS = """
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main(a: pl.Tensor[[16, 32], pl.FP32], idx: pl.Tensor[[4, 8], pl.INT32], o1: pl.Out[pl.Tensor[[8, 16], pl.FP32]], o2: pl.Out[pl.Tensor[[32, 16], pl.FP32]], o3: pl.Out[pl.Tensor[[16, 16], pl.FP32]], o4: pl.Out[pl.Tensor[[4, 8], pl.FP32]], o5: pl.Out[pl.Tensor[[1, 8], pl.INT32]]):
        x = pl.load(a, [0, 0], [16, 32])
        o1 = pl.store(pl.slice(x, [8, 16], [4, 8]), [0, 0], o1)
        o2 = pl.store(pl.reshape(x, [32, 16]), [0, 0], o2)
        o3 = pl.store(pl.transpose(pl.slice(x, [16, 16], [0, 16]), 0, 1), [0, 0], o3)
        i = pl.load(idx, [0, 0], [4, 8])
        tmp = pl.tile.create([4, 8], dtype=pl.FP32)
        o4 = pl.store(pl.gather(x, i, tmp), [0, 0], o4)
        o5 = pl.store(pl.tile.ci(pl.const(5, pl.INT32), [1, 8], dtype=pl.INT32, descending=True), [0, 0], o5)
"""


def test_slice_reshape_transpose_gather_and_ci():
    program = pl.parse(VIEWS)
    inputs = make_inputs(program.get_function("main"), seed=0)
    inputs["idx"] = np.random.default_rng(1).integers(0, 16 * 32, (4, 8)).astype(np.int32)
    out = run_program(program, inputs)
    a = inputs["a"]
    np.testing.assert_array_equal(out["o1"], a[4:12, 8:24])
    np.testing.assert_array_equal(out["o2"], a.reshape(32, 16))
    np.testing.assert_array_equal(out["o3"], a[:, 16:32].T)
    np.testing.assert_array_equal(out["o4"], a.reshape(-1)[inputs["idx"]])
    np.testing.assert_array_equal(out["o5"], (5 - np.arange(8)).reshape(1, 8))  # tile.ci fills one row


def test_gather_index_out_of_range_is_an_error():
    program = pl.parse(VIEWS)
    inputs = make_inputs(program.get_function("main"), seed=0)
    inputs["idx"] = np.full((4, 8), 512, np.int32)
    with pytest.raises(MachineError, match="tile.gather: index 512 at \\[0, 0\\] is outside a source of 512 elements"):
        run_program(program, inputs)


TENSOR_VIEWS = """
import pypto.language as pl

@pl.program
class P:
    @pl.function
    def main(a: pl.Tensor[[8, 8], pl.FP32], out: pl.InOut[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        quarter = pl.slice(out, [8, 8], [8, 0])
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(a, [0, 0], [8, 8])
            quarter = pl.store(pl.muls(t, 3.0), [0, 0], quarter)
        out = pl.assemble(out, pl.add(a, 1.0), [0, 8])
        return out
"""


def test_stores_through_a_tensor_slice_and_assemble_write_the_callers_tensor():
    program = pl.parse(TENSOR_VIEWS)
    inputs = make_inputs(program.get_function("main"), seed=6)
    before = inputs["out"].copy()
    out = run_program(program, inputs)["out"]
    want = before.copy()
    want[8:16, 0:8] = 3 * inputs["a"]
    want[0:8, 8:16] = inputs["a"] + 1
    np.testing.assert_allclose(out, want, rtol=1e-6)


@pytest.mark.parametrize("mode,want", [
    (0, [1.0, -1.0, 1.0, 1.001953125]),  # none = rint: ties to even
    (1, [1.0, -1.0, 1.0, 1.001953125]),
    (2, [1.0, -1.0, 1.0009765625, 1.001953125]),  # round: ties away from zero
    (3, [1.0, -1.0009765625, 1.0, 1.0009765625]),  # floor
    (4, [1.0009765625, -1.0, 1.0009765625, 1.001953125]),  # ceil
    (5, [1.0, -1.0, 1.0, 1.0009765625]),  # trunc
    (6, [1.0009765625, -1.0009765625, 1.0009765625, 1.0009765625]),  # odd
])
def test_fp32_to_fp16_rounding_modes(mode, want):
    x = np.array([1.0001, -1.0001, 1 + 2 ** -11, 1 + 3 * 2 ** -11], np.float32)  # two exact ties last
    got = convert(x, np.dtype(np.float16), mode)
    assert got.dtype == np.float16
    np.testing.assert_array_equal(got.astype(np.float64), want)


def test_float_to_int_modes_saturate_and_bf16_uses_ml_dtypes():
    x = np.array([2.5, -2.5, 3.7, -3.7, 1e10, np.nan], np.float32)
    np.testing.assert_array_equal(convert(x, np.dtype(np.int8), 2), [3, -3, 4, -4, 127, 0])
    np.testing.assert_array_equal(convert(x, np.dtype(np.int8), 1), [2, -2, 4, -4, 127, 0])
    np.testing.assert_array_equal(convert(x, np.dtype(np.int8), 5), [2, -2, 3, -3, 127, 0])
    b = convert(np.array([1 + 2 ** -8], np.float32), np.dtype(ml_dtypes.bfloat16), 4)
    assert b.dtype == ml_dtypes.bfloat16 and float(b[0]) == 1 + 2 ** -7


def test_an_op_without_evaluate_is_a_clear_error_naming_it():
    registry = op_registry()
    registry.register_op(OpDef("test.no_semantics", lambda args, kwargs: ScalarType(DataType.INDEX)),
                         owner="interp_test")
    try:
        call = E.Call(registry.get_op("test.no_semantics"), [], type=ScalarType(DataType.INDEX))
        func = Function("main", [], [ScalarType(DataType.INDEX)], S.ReturnStmt([call]))
        with pytest.raises(MachineError, match="op 'test.no_semantics' has no evaluate: the reference machine "
                                               "cannot execute it \\(its plugin 'interp_test'"):
            run_program(Program([func], "P"), {})
    finally:
        registry.unregister_owner("interp_test")


@pytest.mark.parametrize("dtype", ["INT4", "INT8", "INT32"])
def test_a_bool_scalar_casts_to_every_int_dtype(dtype):
    # pl.cast(<BOOL>, pl.INT4) is no TypeError inside the machine (ml_dtypes' int4 takes no numpy bool); a scalar
    # cast converts like an element cast.
    text = f"""
import pypto.language as pl

@pl.function
def main(n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INT32]:
    b = n > 2
    k = pl.cast(pl.cast(b, pl.{dtype}), pl.INT32)
    return k
"""
    program = pl.parse(text)
    assert int(Machine(program).run(inputs={"n": 5})) == 1
    assert int(Machine(program).run(inputs={"n": 1})) == 0

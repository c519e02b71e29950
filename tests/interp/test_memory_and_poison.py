"""Loads / stores with offsets and valid shapes, Out / InOut write-through, and the poison that
marks elements outside a tile's valid region so that reading them shows in comparisons."""

import ml_dtypes
import numpy as np
import pytest

import pypto.language as pl
from pypto_core.interp import compare_outputs, make_inputs, run_program
from pypto_core.interp.dtypes import is_poison, np_dtype, poison_value
from pypto_core.ir.dtypes import DataType

PARTIAL = """
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main(a: pl.Tensor[[16, 32], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]], full: pl.Out[pl.Tensor[[16, 32], pl.FP32]]):
        x = pl.load(a, [0, 0], [16, 32], valid_shape=[{VR}, {VC}])
        y = pl.adds(x, 1.0)
        out = pl.store(y, [0, 0], out)
        full = pl.store(y, [0, 0], full, [16, 32])
"""


def test_store_writes_only_the_valid_region_and_the_rest_reads_as_poison():
    program = pl.parse(PARTIAL.format(VR=10, VC=24))
    inputs = make_inputs(program.get_function("main"), seed=1)
    out = run_program(program, inputs)
    np.testing.assert_allclose(out["out"][:10, :24], inputs["a"][:10, :24] + 1, rtol=1e-6)
    assert np.isnan(out["out"][10:]).all() and np.isnan(out["out"][:, 24:]).all()  # never written
    # Storing the whole box (explicit shapes) writes the poison of the padding: it shows.
    assert np.isnan(out["full"][10:]).all()
    assert not np.isnan(out["full"][:10, :24]).any()


def test_a_pass_that_shrinks_a_valid_shape_is_visible_in_the_comparison():
    before = pl.parse(PARTIAL.format(VR=16, VC=32))
    after = pl.parse(PARTIAL.format(VR=15, VC=32))
    inputs = make_inputs(before.get_function("main"), seed=2)
    checks = {c.label: c.comparison for c in compare_outputs(run_program(before, inputs), run_program(after, inputs))}
    assert not checks["out"].ok
    assert checks["out"].first_index == (15, 0)
    assert checks["out"].max_abs_error == float("inf")  # a value against poison has no finite error


WINDOWS = """
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main(a: pl.Tensor[[40, 24], pl.FP32], acc: pl.InOut[pl.Tensor[[40, 24], pl.FP32]]):
        for i in pl.range(0, 32, 16):
            x = pl.load(a, [i, 8], [16, 8])
            acc = pl.store(x, [i, 0], acc, atomic=pl.AtomicType.Add)
        tail = pl.load(a, [32, 8], [16, 8])
        acc = pl.store(tail, [32, 0], acc, atomic=pl.AtomicType.Add)
"""


def test_a_window_past_the_end_is_clipped_and_atomic_add_accumulates_in_place():
    program = pl.parse(WINDOWS)
    inputs = make_inputs(program.get_function("main"), seed=4)
    acc_before = inputs["acc"].copy()
    out = run_program(program, inputs)
    want = acc_before.copy()
    want[:, 0:8] += inputs["a"][:, 8:16]
    np.testing.assert_allclose(out["acc"], want, rtol=1e-6)  # the tail window holds 8 valid rows of 16
    np.testing.assert_array_equal(inputs["acc"], acc_before)  # run_program works on a copy


STORE_OOB = """
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main(a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]], r: pl.Scalar[pl.INDEX]):
        x = pl.load(a, [0, 0], [8, 16])
        out = pl.store(x, [r, 0], out)
"""


def test_a_store_past_the_end_is_an_error():
    program = pl.parse(STORE_OOB)
    inputs = make_inputs(program.get_function("main"), seed=0)
    inputs["r"] = 12
    with pytest.raises(ValueError, match=r"tile.store writes past the end of dimension 0: offset 12 \+ extent 8"):
        run_program(program, inputs)


@pytest.mark.parametrize("dtype", [d for d in DataType if d not in (DataType.HF4, DataType.HF8)])
def test_every_dtype_has_a_numpy_type_and_a_detectable_poison(dtype):
    dt = np_dtype(dtype)
    arr = np.full((3,), poison_value(dt), dtype=dt)
    if dtype is DataType.BOOL:
        assert not is_poison(arr).any()  # documented: bools cannot carry poison
    else:
        assert is_poison(arr).all()


def test_dtype_table_uses_ml_dtypes_for_bf16_and_int64_for_index():
    assert np_dtype(DataType.BF16) == np.dtype(ml_dtypes.bfloat16)
    assert np_dtype(DataType.INDEX) == np.dtype(np.int64)
    assert poison_value(np.dtype(np.int8)) == -128 and poison_value(np.dtype(np.uint16)) == 65535


def test_an_element_the_program_leaves_undefined_may_hold_any_value_but_not_the_reverse():
    from pypto_core.interp.tolerance import compare_values

    expected = np.array([[1.0, np.nan], [3.0, np.nan]], np.float32)  # poison: outside the valid region
    written = np.array([[1.0, 7.0], [3.0, -2.0]], np.float32)  # a planned program's stale bytes there
    assert compare_values(expected, written).ok
    assert not compare_values(written, expected).ok  # poison where a value was expected is a mismatch
    ints = np.array([5, np.iinfo(np.int32).min], np.int32)
    assert compare_values(ints, np.array([5, 9], np.int32)).ok
    assert not compare_values(ints, np.array([6, 9], np.int32)).ok

"""Element-wise tile and tensor ops on the machine, per dtype, against numpy written out here."""

import ml_dtypes
import numpy as np
import pytest

import pypto.language as pl
from pypto_core.interp import Machine, make_inputs, run_program
from pypto_core.interp.tolerance import tolerance_for

TILE_BINARY = """
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main(a: pl.Tensor[[16, 32], pl.{D}], b: pl.Tensor[[{BR}, 32], pl.{D}], out: pl.Out[pl.Tensor[[16, 32], pl.{D}]]) -> pl.Tensor[[16, 32], pl.{D}]:
        x = pl.load(a, [0, 0], [16, 32])
        y = pl.load(b, [0, 0], [{BR}, 32])
        z = pl.{OP}(x, y)
        out = pl.store(z, [0, 0], out)
        return out
"""

NUMPY_BINARY = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "maximum": np.maximum,
                "minimum": np.minimum, "div": np.divide}


def _check(got: np.ndarray, want: np.ndarray) -> None:
    tol = tolerance_for(got.dtype)
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=tol.rtol, atol=tol.atol)


@pytest.mark.parametrize("dtype", ["FP32", "FP16", "BF16"])
@pytest.mark.parametrize("op", sorted(NUMPY_BINARY))
def test_tile_binary_ops_per_float_dtype(op, dtype):
    if op == "div" and dtype == "BF16":  # tile.div takes one dtype of {INT16, INT32, FP16, FP32}
        with pytest.raises(ValueError, match=r"tile\.div: lhs is BF16; allowed dtypes"):
            pl.parse(TILE_BINARY.format(D=dtype, OP=op, BR=16))
        return
    program = pl.parse(TILE_BINARY.format(D=dtype, OP=op, BR=16))
    inputs = make_inputs(program.get_function("main"), seed=7)
    if op == "div":
        inputs["b"] = (np.abs(inputs["b"].astype(np.float32)) + 0.5).astype(inputs["b"].dtype)
    got = run_program(program, inputs)["out"]
    want = NUMPY_BINARY[op](inputs["a"].astype(np.float64), inputs["b"].astype(np.float64))
    assert got.dtype == {"FP32": np.float32, "FP16": np.float16, "BF16": ml_dtypes.bfloat16}[dtype]
    _check(got, want)


def test_tile_binary_broadcasts_a_row():
    program = pl.parse(TILE_BINARY.format(D="FP32", OP="add", BR=1))
    inputs = make_inputs(program.get_function("main"), seed=1)
    got = run_program(program, inputs)["out"]
    np.testing.assert_allclose(got, inputs["a"] + inputs["b"][0:1], rtol=1e-6)


INT_OPS = """
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main(a: pl.Tensor[[4, 8], pl.{D}], b: pl.Tensor[[4, 8], pl.{D}], q: pl.Out[pl.Tensor[[4, 8], pl.{D}]], s: pl.Out[pl.Tensor[[4, 8], pl.{D}]]):
        x = pl.load(a, [0, 0], [4, 8])
        y = pl.load(b, [0, 0], [4, 8])
        q = pl.store(pl.div(x, y), [0, 0], q)
        s = pl.store(pl.adds(x, 3), [0, 0], s)
"""


INT_DTYPES = [("INT8", np.int8), ("INT16", np.int16), ("INT32", np.int32), ("INT64", np.int64), ("UINT8", np.uint8),
              ("UINT16", np.uint16), ("UINT32", np.uint32), ("UINT64", np.uint64)]
DIV_INT_DTYPES = ("INT16", "INT32")  # tile.div takes one dtype of {INT16, INT32, FP16, FP32}


@pytest.mark.parametrize("dtype,np_dtype", [d for d in INT_DTYPES if d[0] in DIV_INT_DTYPES])
def test_integer_division_truncates_and_division_by_zero_gives_zero(dtype, np_dtype):
    program = pl.parse(INT_OPS.format(D=dtype))
    a = np.array([[-7, 7, -8, 5, 0, 3, 9, 1]] * 4).astype(np_dtype)
    b = np.array([[2, -2, 3, 0, 4, 3, 2, 1]] * 4).astype(np_dtype)
    out = run_program(program, {"a": a, "b": b, "q": np.zeros_like(a), "s": np.zeros_like(a)})
    def trunc_div(x: int, y: int) -> int:
        q = abs(x) // abs(y) if y else 0
        return -q if (x < 0) != (y < 0) else q

    want = np.array([[trunc_div(int(x), int(y)) for x, y in zip(ra, rb)] for ra, rb in zip(a, b)]).astype(np_dtype)
    np.testing.assert_array_equal(out["q"], want)
    np.testing.assert_array_equal(out["s"], (a + np_dtype(3)).astype(np_dtype))
    assert out["q"].dtype == np_dtype


@pytest.mark.parametrize("dtype,np_dtype", [d for d in INT_DTYPES if d[0] not in DIV_INT_DTYPES])
def test_integer_division_of_other_widths_is_rejected_and_adds_keeps_the_dtype(dtype, np_dtype):
    with pytest.raises(ValueError, match=rf"tile\.div: lhs is {dtype}; allowed dtypes: INT16, INT32, FP16, FP32"):
        pl.parse(INT_OPS.format(D=dtype))
    program = pl.parse(INT_OPS.format(D=dtype).replace("pl.div(x, y)", "pl.sub(x, y)"))
    a = np.array([[-7, 7, -8, 5, 0, 3, 9, 1]] * 4).astype(np_dtype)
    b = np.array([[2, -2, 3, 0, 4, 3, 2, 1]] * 4).astype(np_dtype)
    out = run_program(program, {"a": a, "b": b, "q": np.zeros_like(a), "s": np.zeros_like(a)})
    np.testing.assert_array_equal(out["s"], (a + np_dtype(3)).astype(np_dtype))
    assert out["s"].dtype == np_dtype


UNARY = """
import pypto.language as pl

@pl.program
class P:
    @pl.function
    def main(a: pl.Tensor[[8, 16], pl.FP32]) -> pl.Tensor[[8, 16], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            x = pl.load(a, [0, 0], [8, 16])
            y = pl.{OP}(x)
            r = pl.create_tensor([8, 16], dtype=pl.FP32)
            r = pl.store(y, [0, 0], r)
        return r
"""

NUMPY_UNARY = {"exp": np.exp, "neg": np.negative, "abs": np.abs, "relu": lambda x: np.maximum(x, 0),
               "sqrt": lambda x: np.sqrt(np.abs(x)), "recip": lambda x: 1 / x, "rsqrt": lambda x: 1 / np.sqrt(np.abs(x))}


@pytest.mark.parametrize("op", sorted(NUMPY_UNARY))
def test_unary_ops(op):
    program = pl.parse(UNARY.format(OP=op))
    inputs = make_inputs(program.get_function("main"), seed=4)
    if op in ("sqrt", "rsqrt"):
        inputs["a"] = np.abs(inputs["a"])
    got = run_program(program, inputs)["return"]
    np.testing.assert_allclose(got, NUMPY_UNARY[op](inputs["a"].astype(np.float64)), rtol=1e-5, atol=1e-6)


TENSOR = """
import pypto.language as pl

@pl.program
class P:
    @pl.function
    def main(a: pl.Tensor[[8, 8], pl.FP32], b: pl.Tensor[[8, 8], pl.FP32]) -> pl.Tensor[[8, 8], pl.FP32]:
        c = pl.add(a, b)
        d = pl.mul(c, 2.0)
        e = pl.exp(pl.sub(d, a))
        return e
"""


def test_tensor_ops_and_scalar_operands():
    program = pl.parse(TENSOR)
    inputs = make_inputs(program.get_function("main"), seed=9)
    got = Machine(program).run(inputs=inputs)
    a, b = inputs["a"].astype(np.float64), inputs["b"].astype(np.float64)
    np.testing.assert_allclose(got, np.exp((a + b) * 2 - a), rtol=1e-5)

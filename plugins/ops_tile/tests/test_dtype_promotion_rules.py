"""The dtype rules over whole op families: each op's result dtype, and scalar operands (docs/dsl.md, functions).

`promote(a,b)`: the same dtype stays; a float beats an int; else the wider wins; on equal widths the
signed int; else a. Tensor-scalar ops promote except tensor.subs and the bitwise ones; tile-scalar
ops keep the tile's dtype.
"""

from __future__ import annotations

import pytest

import pypto.language as pl
from pypto import DataType, ir
from pypto_core.ops.build import promote_dtypes, retype_literal
from pypto_plugins.ops_tile.common import names as tile_elementwise
from pypto_plugins.ops_tile.common.names import TENSOR as tensor_elementwise

from .helpers import tensor, tile

SPAN = ir.Span.unknown()
BITWISE_SCALAR = tuple(n for n in tile_elementwise.SCALAR if tile_elementwise.is_bitwise(n))


@pytest.mark.parametrize("a,b,want", [
    (DataType.FP16, DataType.FP16, DataType.FP16),
    (DataType.FP16, DataType.FP32, DataType.FP32),
    (DataType.INT32, DataType.FP32, DataType.FP32),  # a float beats an int
    (DataType.INT64, DataType.FP16, DataType.FP16),
    (DataType.INT8, DataType.INT32, DataType.INT32),  # the wider wins
    (DataType.UINT32, DataType.INT32, DataType.INT32),  # equal widths: the signed int
    (DataType.FP16, DataType.BF16, DataType.FP16),  # else a
    (DataType.BF16, DataType.FP16, DataType.BF16),
    (DataType.BOOL, DataType.INT8, DataType.INT8),
])
def test_promote_of_two_dtypes(a, b, want):
    assert promote_dtypes(a, b, "tensor.add") is want


def test_promote_rejects_task_ids():
    with pytest.raises(TypeError, match=r"tensor\.add: TASK_ID elements take no part in arithmetic"):
        promote_dtypes(DataType.TASK_ID, DataType.INT32, "tensor.add")


def test_literals_keep_fp32_and_ints_take_an_integer_dtype():
    one = ir.ConstFloat(1.0, DataType.FP32, SPAN)
    assert retype_literal(one, DataType.FP16) is one
    assert retype_literal(one, DataType.INT32) is one
    two = ir.ConstInt(2, DataType.INDEX, SPAN)
    assert retype_literal(two, DataType.INT16).dtype is DataType.INT16
    typed = ir.ConstInt(2, DataType.INT8, SPAN)
    assert retype_literal(typed, DataType.INT32) is typed


def _scalar_result(space: str, op: str, dtype: DataType, scalar: ir.Expr) -> DataType:
    operand = tile([16, 32], dtype) if space == "tile" else tensor([16, 32], dtype)
    return ir.create_op_call(f"{space}.{op}", [operand, scalar], SPAN).type.dtype


@pytest.mark.parametrize("op", [n for n in tensor_elementwise.SCALAR if n not in BITWISE_SCALAR])
def test_every_tensor_scalar_op_promotes_except_subs(op):
    half = _scalar_result("tensor", op, DataType.FP16, ir.ConstFloat(1.0, DataType.FP32, SPAN))
    ints = _scalar_result("tensor", op, DataType.INT32, ir.ConstFloat(1.5, DataType.FP32, SPAN))
    if op == "subs":  # tensor.subs: the scalar does not promote
        assert (half, ints) == (DataType.FP16, DataType.INT32)
    else:
        assert (half, ints) == (DataType.FP32, DataType.FP32)


@pytest.mark.parametrize("op", BITWISE_SCALAR)
def test_bitwise_tensor_scalar_ops_keep_the_tensor_dtype(op):
    assert _scalar_result("tensor", op, DataType.INT16, ir.ConstInt(1, DataType.INT32, SPAN)) is DataType.INT16


@pytest.mark.parametrize("op", tile_elementwise.SCALAR)
def test_every_tile_scalar_op_keeps_the_tile_dtype(op):
    dtype = DataType.INT16 if op in BITWISE_SCALAR else DataType.FP16
    scalar = ir.ConstInt(1, DataType.INT32, SPAN) if op in BITWISE_SCALAR else ir.ConstFloat(1.0, DataType.FP32, SPAN)
    assert _scalar_result("tile", op, dtype, scalar) is dtype


def test_promoted_result_keeps_only_the_valid_region():
    """tensor.adds's result is fresh and keeps lhs's valid region: no strides or layout of a transposed operand
    carry over."""
    x = tensor([32, 64], pl.FP16)
    t = ir.create_op_call("tensor.transpose", [x, ir.ConstInt(0, DataType.INDEX, SPAN),
                                               ir.ConstInt(1, DataType.INDEX, SPAN)], SPAN)
    y = ir.Var("y", t.type, SPAN)
    result = ir.create_op_call("tensor.adds", [y, ir.ConstFloat(1.0, DataType.FP32, SPAN)], SPAN).type
    assert result == ir.TensorType([64, 32], DataType.FP32)
    assert ir.create_op_call("tensor.exp", [y], SPAN).type == ir.TensorType([64, 32], DataType.FP16)
    sliced = ir.create_op_call("tensor.slice", [x, ir.MakeTuple([ir.ConstInt(8), ir.ConstInt(64)]),
                                                ir.MakeTuple([ir.ConstInt(0), ir.ConstInt(0)]),
                                                ir.MakeTuple([ir.ConstInt(5), ir.ConstInt(64)])], SPAN)
    part = ir.Var("part", sliced.type, SPAN)
    kept = ir.create_op_call("tensor.muls", [part, ir.ConstFloat(2.0, DataType.FP32, SPAN)], SPAN).type
    assert kept.tensor_view.valid_shape == sliced.type.tensor_view.valid_shape and kept.dtype is DataType.FP32


@pytest.mark.parametrize("space", ["tile", "tensor"])
def test_the_div_family(space):
    make = tile if space == "tile" else tensor
    for dtype in (DataType.INT8, DataType.INT64, DataType.UINT16, DataType.BF16, DataType.FP8E4M3FN):
        with pytest.raises(TypeError, match=rf"{space}\.div: lhs is {dtype.name}; allowed dtypes: INT16, INT32, "
                                            rf"FP16, FP32"):
            ir.create_op_call(f"{space}.div", [make([16, 32], dtype), make([16, 32], dtype)], SPAN)
    # The scalar form has no dtype rule (tile.divs keeps the tile's dtype, tensor.divs promotes: docs/dsl.md,
    # functions).
    half = ir.ConstFloat(2.0, DataType.BF16, SPAN)
    assert _scalar_result(space, "divs", DataType.BF16, half) is DataType.BF16


@pytest.mark.parametrize("space", ["tile", "tensor"])
def test_the_row_reduction_family(space):
    def reduce(op: str, dtype: DataType) -> DataType:
        args = [tile([16, 32], dtype), tile([16, 32], dtype)] if space == "tile" else [tensor([16, 32], dtype)]
        return ir.create_op_call(f"{space}.{op}", args, SPAN).type.dtype

    for dtype in (DataType.INT16, DataType.INT32, DataType.FP16, DataType.FP32):
        assert reduce("row_min", dtype) is dtype
    for dtype in (DataType.INT8, DataType.BF16, DataType.UINT32):
        with pytest.raises(TypeError, match=rf"{space}\.row_min: the operand is {dtype.name}; allowed dtypes"):
            reduce("row_min", dtype)
        assert reduce("row_max", dtype) is dtype  # row_max and row_sum take any dtype
        assert reduce("row_sum", dtype) is dtype


@pytest.mark.parametrize("space", ["tile", "tensor"])
def test_the_cast_family(space):
    make = tile if space == "tile" else tensor
    for dtype in (DataType.FP16, DataType.INT32, DataType.BF16):
        with pytest.raises(TypeError, match=rf"{space}\.cast: the operand is {dtype.name} already"):
            ir.create_op_call(f"{space}.cast", [make([16, 32], dtype)], {"target_type": dtype}, SPAN)

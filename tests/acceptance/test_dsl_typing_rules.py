"""Typing rules of the DSL that PyPTO applies.

Each case compares the printed text exactly and/or the IR structurally against IR built by hand;
the rules are PyPTO's: how scalar operands promote (docs/dsl.md, functions) and each op's result type.
"""

from __future__ import annotations

import pytest

import pypto.language as pl
from pypto import DataType, ir, passes
from pypto.language.parser.diagnostics import InvalidOperationError

SPAN = ir.Span.unknown()


def _text(func: ir.Function) -> str:
    return ir.python_print(func, format=False)


def _value(func: ir.Function, index: int = 0) -> ir.Expr:
    return ir.flatten_to_stmts(func.body)[index].value


def _call(op: str, args: list[ir.Expr], kwargs: dict | None, result: ir.Type) -> ir.Call:
    return ir.Call(ir.Op(op), args, kwargs or {}, result, SPAN)


def _roundtrips(func: ir.Function) -> None:
    ir.assert_structural_equal(func, pl.parse(_text(func)))


# -- scalar operands ---------------------------------------------------------------------------------
class TestScalarOperands:
    def test_tensor_plus_float_literal_promotes_to_fp32(self):
        """`pl.add(x_fp16, 1.0)` is tensor.adds with an FP32 result, the literal printed bare (docs/dsl.md,
        functions: a tensor op with a scalar promotes)."""

        @pl.function
        def f(x: pl.Tensor[[32, 64], pl.FP16]) -> pl.Tensor[[32, 64], pl.FP32]:
            y = pl.add(x, 1.0)
            return y

        assert _text(f) == (
            "@pl.function\n"
            "def f(x: pl.Tensor[[32, 64], pl.FP16]) -> pl.Tensor[[32, 64], pl.FP32]:\n"
            "    y: pl.Tensor[[32, 64], pl.FP32] = pl.tensor.adds(x, 1.0)\n"
            "    return y")
        x = f.params[0]
        expected = _call("tensor.adds", [x, ir.ConstFloat(1.0, DataType.FP32, SPAN)], None,
                         ir.TensorType([32, 64], DataType.FP32))
        ir.assert_structural_equal(_value(f), expected)
        _roundtrips(f)

    def test_int_tensor_plus_fraction_is_fp32_and_keeps_the_fraction(self):
        @pl.function
        def f(y: pl.Tensor[[8, 16], pl.INT32]) -> pl.Tensor[[8, 16], pl.FP32]:
            z = pl.add(y, 1.5)
            return z

        assert "    z: pl.Tensor[[8, 16], pl.FP32] = pl.tensor.adds(y, 1.5)\n" in _text(f)
        value = _value(f)
        assert isinstance(value.args[1], ir.ConstFloat) and value.args[1].value == 1.5
        assert value.args[1].dtype == DataType.FP32
        _roundtrips(f)

    def test_int_literal_takes_the_integer_tensor_dtype(self):
        @pl.function
        def f(y: pl.Tensor[[8, 16], pl.INT32]) -> pl.Tensor[[8, 16], pl.INT32]:
            z = pl.mul(y, 2)
            return z

        assert "    z: pl.Tensor[[8, 16], pl.INT32] = pl.tensor.muls(y, pl.const(2, pl.INT32))\n" in _text(f)
        y = f.params[0]
        expected = _call("tensor.muls", [y, ir.ConstInt(2, DataType.INT32, SPAN)], None,
                         ir.TensorType([8, 16], DataType.INT32))
        ir.assert_structural_equal(_value(f), expected)

    def test_tensor_subs_does_not_promote(self):
        """tensor.subs gives Tensor[lhs.shape; lhs.dtype]: the scalar does not promote."""

        @pl.function
        def f(x: pl.Tensor[[32, 64], pl.FP16]) -> pl.Tensor[[32, 64], pl.FP16]:
            y = pl.sub(x, 1.0)
            return y

        assert "    y: pl.Tensor[[32, 64], pl.FP16] = pl.tensor.subs(x, 1.0)\n" in _text(f)

    def test_tile_op_with_a_scalar_keeps_the_tile_dtype(self):
        """`pl.add(t_fp16, 1.0)` is tile.adds with an FP16 result; the literal prints as `1.0` (docs/dsl.md,
        functions: a tile op keeps the tile's dtype)."""

        @pl.function
        def f(t: pl.Tile[[16, 64], pl.FP16, pl.Mem.Vec]) -> pl.Tile[[16, 64], pl.FP16, pl.Mem.Vec]:
            u = pl.add(t, 1.0)
            return u

        assert _text(f) == (
            "@pl.function\n"
            "def f(t: pl.Tile[[16, 64], pl.FP16, pl.Mem.Vec]) -> pl.Tile[[16, 64], pl.FP16, pl.Mem.Vec]:\n"
            "    u: pl.Tile[[16, 64], pl.FP16, pl.Mem.Vec] = pl.tile.adds(t, 1.0)\n"
            "    return u")
        t = f.params[0]
        expected = _call("tile.adds", [t, ir.ConstFloat(1.0, DataType.FP32, SPAN)], None,
                         ir.TileType([16, 64], DataType.FP16, memory_space=ir.MemorySpace.Vec))
        ir.assert_structural_equal(_value(f), expected)
        _roundtrips(f)

    def test_typed_constant_and_scalar_var_are_kept(self):
        @pl.function
        def f(x: pl.Tensor[[8], pl.FP16], s: pl.Scalar[pl.FP16]) -> pl.Tensor[[8], pl.FP16]:
            a = pl.add(x, pl.const(2.0, pl.FP16))
            b = pl.mul(a, s)
            return b

        text = _text(f)
        assert "    a: pl.Tensor[[8], pl.FP16] = pl.tensor.adds(x, pl.const(2.0, pl.FP16))\n" in text
        assert "    b: pl.Tensor[[8], pl.FP16] = pl.tensor.muls(a, s)\n" in text


# -- tensor.dim ---------------------------------------------------------------------------------------
def test_tensor_dim_is_an_index_scalar():
    """tensor.dim gives a Scalar[INDEX]."""

    @pl.function
    def f(x: pl.Tensor[[32, 64], pl.FP32]) -> pl.Scalar[pl.INDEX]:
        n = pl.tensor.dim(x, 1)
        return n

    assert "    n: pl.Scalar[pl.INDEX] = pl.tensor.dim(x, 1)\n" in _text(f)
    ir.assert_structural_equal(_value(f), _call("tensor.dim", [f.params[0], ir.ConstInt(1, DataType.INDEX, SPAN)],
                                                None, ir.ScalarType(DataType.INDEX)))


# -- tensor.matmul kwargs ------------------------------------------------------------------------------
def test_tensor_matmul_records_its_defaulted_kwargs():
    """PyPTO prints `pl.tensor.matmul(y, y, a_trans=False, b_trans=False, c_matrix_nz=False)`."""

    @pl.function
    def f(a: pl.Tensor[[32, 64], pl.FP16], b: pl.Tensor[[16, 64], pl.FP16],
          e: pl.Tensor[[64, 16], pl.FP16]) -> pl.Tensor[[32, 16], pl.FP32]:
        c = pl.tensor.matmul(a, e)
        d = pl.matmul(a, b, out_dtype=pl.FP32, b_trans=True)
        return d

    text = _text(f)
    assert ("    c: pl.Tensor[[32, 16], pl.FP16] = pl.tensor.matmul(a, e, a_trans=False, b_trans=False, "
            "c_matrix_nz=False)\n") in text
    assert ("    d: pl.Tensor[[32, 16], pl.FP32] = pl.tensor.matmul(a, b, out_dtype=pl.FP32, a_trans=False, "
            "b_trans=True, c_matrix_nz=False)\n") in text
    a, b, _ = f.params
    expected = _call("tensor.matmul", [a, b], {"out_dtype": DataType.FP32, "a_trans": False, "b_trans": True,
                                               "c_matrix_nz": False}, ir.TensorType([32, 16], DataType.FP32))
    ir.assert_structural_equal(_value(f, 1), expected)
    _roundtrips(f)


def test_tensor_matmul_built_without_kwargs_records_them():
    a = ir.Var("a", ir.TensorType([16, 16], DataType.FP32), SPAN)
    call = ir.create_op_call("tensor.matmul", [a, a], SPAN)
    assert dict(call.kwargs) == {"a_trans": False, "b_trans": False, "c_matrix_nz": False}
    assert ir.python_print(call) == "pl.tensor.matmul(a, a, a_trans=False, b_trans=False, c_matrix_nz=False)"


# -- transpose is a view -------------------------------------------------------------------------------
class TestTransposeView:
    def test_transpose_of_a_tensor_carries_the_transposed_view(self):
        """tensor.transpose of a [M, N] tensor carries TensorView(stride=[1, N], layout=DN)."""

        @pl.function
        def f(x: pl.Tensor[[32, 64], pl.FP32]):
            y = pl.transpose(x, 0, 1)

        assert _text(f) == (
            "@pl.function\n"
            "def f(x: pl.Tensor[[32, 64], pl.FP32]):\n"
            "    y: pl.Tensor[[64, 32], pl.FP32, pl.TensorView(stride=[1, 64], layout=pl.TensorLayout.DN)] = "
            "pl.tensor.transpose(x, 0, 1)")
        view = ir.TensorView(stride=[1, 64], layout=ir.TensorLayout.DN)
        expected = _call("tensor.transpose", [f.params[0], ir.ConstInt(0, DataType.INDEX, SPAN),
                                              ir.ConstInt(1, DataType.INDEX, SPAN)], None,
                         ir.TensorType([64, 32], DataType.FP32, tensor_view=view))
        ir.assert_structural_equal(_value(f), expected)
        _roundtrips(f)

    def test_transposing_back_gives_the_packed_tensor(self):
        @pl.function
        def f(x: pl.Tensor[[32, 64], pl.FP32]):
            y = pl.transpose(x, 0, 1)
            z = pl.tensor.transpose(y, 1, 0)

        assert "    z: pl.Tensor[[32, 64], pl.FP32] = pl.tensor.transpose(y, 1, 0)" in _text(f)

    def test_dynamic_extent_is_the_stride(self):
        prog = pl.parse('import pypto.language as pl\n\nN = pl.dynamic("N")\n\n@pl.program\nclass P:\n'
                        '    @pl.function\n    def f(self, x: pl.Tensor[[16, N], pl.FP16]):\n'
                        '        y = pl.transpose(x, 0, 1)\n')
        text = ir.python_print(prog, format=False)
        assert ("        y: pl.Tensor[[N, 16], pl.FP16, pl.TensorView(stride=[1, N], layout=pl.TensorLayout.DN)] = "
                "pl.tensor.transpose(x, 0, 1)") in text
        ir.assert_structural_equal(prog, pl.parse(text))

    def test_leading_axes_swap_keeps_nd_and_records_strides(self):
        @pl.function
        def f(x: pl.Tensor[[2, 8, 16], pl.FP32]):
            y = pl.transpose(x, 0, 1)

        assert ("    y: pl.Tensor[[8, 2, 16], pl.FP32, pl.TensorView(stride=[16, 128, 1], "
                "layout=pl.TensorLayout.ND)] = pl.tensor.transpose(x, 0, 1)") in _text(f)


# -- dtype checks ---------------------------------------------------------------------------------------
def _tensor(shape: list[int], dtype: DataType, name: str = "x") -> ir.Var:
    return ir.Var(name, ir.TensorType(shape, dtype), SPAN)


def _tile(shape: list[int], dtype: DataType, name: str = "t") -> ir.Var:
    return ir.Var(name, ir.TileType(shape, dtype, memory_space=ir.MemorySpace.Vec), SPAN)


class TestDtypeChecks:
    def test_tensor_div_rejects_bf16(self):
        """tensor.div takes both dtypes in {INT16, INT32, FP16, FP32}."""
        with pytest.raises(InvalidOperationError, match=r"tensor\.div: lhs is BF16; allowed dtypes: INT16, INT32, "
                                                        r"FP16, FP32"):
            @pl.function
            def f(x: pl.Tensor[[16, 16], pl.BF16]) -> pl.Tensor[[16, 16], pl.BF16]:
                y = pl.div(x, x)
                return y

    @pytest.mark.parametrize("dtype", [DataType.INT16, DataType.INT32, DataType.FP16, DataType.FP32])
    def test_div_accepts_its_dtypes(self, dtype):
        x = _tensor([16, 16], dtype)
        assert ir.create_op_call("tensor.div", [x, x], SPAN).type == ir.TensorType([16, 16], dtype)
        t = _tile([16, 16], dtype)
        assert ir.create_op_call("tile.div", [t, t], SPAN).type.dtype == dtype

    def test_tensor_div_promotes_and_broadcasts(self):
        call = ir.create_op_call("tensor.div", [_tensor([16, 16], DataType.FP16), _tensor([1, 16], DataType.FP32)],
                                 SPAN)
        assert call.type == ir.TensorType([16, 16], DataType.FP32)

    def test_tile_div_needs_one_dtype_and_shape(self):
        """tile.div takes one dtype of {INT16, INT32, FP16, FP32} and identical shapes (no broadcast)."""
        with pytest.raises(TypeError, match=r"tile\.div: lhs is BF16; allowed dtypes: INT16, INT32, FP16, FP32"):
            ir.create_op_call("tile.div", [_tile([16, 16], DataType.BF16), _tile([16, 16], DataType.BF16)], SPAN)
        with pytest.raises(TypeError, match=r"tile\.div: rhs is FP32 but lhs is FP16"):
            ir.create_op_call("tile.div", [_tile([16, 16], DataType.FP16), _tile([16, 16], DataType.FP32)], SPAN)
        with pytest.raises(TypeError, match=r"tile\.div: shapes \[16, 16\] and \[1, 16\] differ"):
            ir.create_op_call("tile.div", [_tile([16, 16], DataType.FP32), _tile([1, 16], DataType.FP32)], SPAN)

    def test_tile_divs_keeps_any_dtype(self):
        t = _tile([16, 16], DataType.BF16)
        call = ir.create_op_call("tile.divs", [t, ir.ConstFloat(2.0, DataType.FP32, SPAN)], SPAN)
        assert call.type.dtype == DataType.BF16

    def test_row_min_dtypes(self):
        """tile.row_min / tensor.row_min take a dtype in {INT16, INT32, FP16, FP32}; row_max has no dtype rule."""
        with pytest.raises(TypeError, match=r"tile\.row_min: the operand is BF16; allowed dtypes: INT16, INT32, "
                                            r"FP16, FP32"):
            ir.create_op_call("tile.row_min", [_tile([16, 16], DataType.BF16), _tile([16, 16], DataType.BF16)], SPAN)
        with pytest.raises(InvalidOperationError, match=r"tensor\.row_min: the operand is INT8; allowed dtypes"):
            @pl.function
            def f(x: pl.Tensor[[16, 16], pl.INT8]) -> pl.Tensor[[16, 1], pl.INT8]:
                y = pl.row_min(x)
                return y
        rmax = ir.create_op_call("tile.row_max", [_tile([16, 16], DataType.BF16), _tile([16, 16], DataType.BF16)],
                                 SPAN)
        assert rmax.type.dtype == DataType.BF16
        assert ir.create_op_call("tensor.row_max", [_tensor([16, 16], DataType.INT8)], SPAN).type == \
            ir.TensorType([16, 1], DataType.INT8)

    def test_row_reduction_tmp_matches_the_operand(self):
        """tile.row_max: tmp_tile has the operand's dtype and rank and is not smaller per dim."""
        with pytest.raises(TypeError, match=r"tile\.row_max: tmp is FP16 but the operand is FP32"):
            ir.create_op_call("tile.row_max", [_tile([16, 16], DataType.FP32), _tile([16, 16], DataType.FP16)], SPAN)
        with pytest.raises(TypeError, match=r"tile\.row_sum: tmp \[16, 8\] is smaller than the operand \[16, 16\]"):
            ir.create_op_call("tile.row_sum", [_tile([16, 16], DataType.FP32), _tile([16, 8], DataType.FP32)], SPAN)

    @pytest.mark.parametrize("space", ["tile", "tensor"])
    def test_cast_to_the_same_dtype_is_rejected(self, space):
        """tile.cast / tensor.cast: target_type must differ from the input dtype."""
        operand = _tile([16, 16], DataType.FP16) if space == "tile" else _tensor([16, 16], DataType.FP16)
        with pytest.raises(TypeError, match=rf"{space}\.cast: the operand is FP16 already; target_type must be a "
                                            rf"dtype other than FP16"):
            ir.create_op_call(f"{space}.cast", [operand], {"target_type": DataType.FP16}, SPAN)
        cast = ir.create_op_call(f"{space}.cast", [operand], {"target_type": DataType.FP32}, SPAN)
        assert cast.type.dtype == DataType.FP32

    def test_cast_to_the_same_dtype_in_the_dsl(self):
        with pytest.raises(InvalidOperationError, match=r"tensor\.cast: the operand is FP32 already"):
            @pl.function
            def f(x: pl.Tensor[[16], pl.FP32]) -> pl.Tensor[[16], pl.FP32]:
                y = pl.cast(x, pl.FP32)
                return y


# -- consequence of the scalar operand rule for tile lowering -------------------------------------------
class TestPromotedTensorOpsLowerToTiles:
    """A tensor op whose result dtype is promoted (docs/dsl.md, functions) lowers to a tile.cast of the operand to the
    result dtype, then the tile op (which keeps its tile's dtype): the kernel computes what the program says."""

    def test_fp16_tensor_plus_float_literal(self):
        from pypto import backend
        from pypto.backend import BackendType
        from pypto_core.testing import same_results

        backend.set_backend_type(BackendType.Ascend950)

        @pl.program
        class Before:
            @pl.function(type=pl.FunctionType.InCore)
            def k(self, x: pl.Tensor[[16, 64], pl.FP16], y: pl.Tensor[[16, 64], pl.INT32],
                  out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
                a = pl.add(x, 1.0)
                b = pl.mul(y, 1.5)
                c = pl.div(a, b)
                o = pl.assemble(out, c, [0, 0])
                return o

        @pl.program
        class Expected:
            @pl.function(type=pl.FunctionType.InCore)
            def k(self, x: pl.Tensor[[16, 64], pl.FP16], y: pl.Tensor[[16, 64], pl.INT32],
                  out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
                x_tile: pl.Tile[[16, 64], pl.FP16, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
                y_tile: pl.Tile[[16, 64], pl.INT32, pl.Mem.Vec] = pl.tile.load(y, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
                promoted: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.cast(x_tile, target_type=pl.FP32)
                a: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(promoted, 1.0)
                promoted_1: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.cast(y_tile, target_type=pl.FP32)
                b: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.muls(promoted_1, 1.5)
                c: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.div(a, b)
                o: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(c, [0, 0], out)
                return o

        After = passes.convert_tensor_to_tile_ops()(Before)
        ir.assert_structural_equal(After, Expected)
        same_results(Before, After)

    def test_broadcasting_tensor_div_lowers_to_the_expand_forms(self):
        """tile.div does not broadcast: a [1, N] / [M, 1] divisor becomes col / row_expand_div."""
        from pypto import backend
        from pypto.backend import BackendType
        from pypto_core.testing import same_results

        backend.set_backend_type(BackendType.Ascend950)

        @pl.program
        class Before:
            @pl.function(type=pl.FunctionType.InCore)
            def k(self, a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[1, 32], pl.FP16],
                  c: pl.Tensor[[16, 1], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
                u = pl.div(a, b)
                v = pl.div(u, c)
                o = pl.assemble(out, v, [0, 0])
                return o

        After = passes.convert_tensor_to_tile_ops()(Before)
        ops = [s.value.op.name for s in ir.flatten_to_stmts(After.get_function("k").body)
               if isinstance(s, ir.AssignStmt) and isinstance(s.value, ir.Call)]
        assert ops == ["tile.load", "tile.load", "tile.load", "tile.cast", "tile.col_expand_div",
                       "tile.row_expand_div", "tile.store"]
        same_results(Before, After)

"""IR nodes: immutability, constructor forms, promotion, TileView canonicalisation."""

import sys

import pytest

from pypto import ir
from pypto_core.ir import DataType, MemorySpace, TileLayout


def test_nodes_are_immutable():
    v = ir.Var("x", ir.ScalarType(DataType.INDEX))
    with pytest.raises(AttributeError, match="immutable"):
        v.name_hint = "y"


def test_scalar_promotion_casts_the_narrower_side():
    s = ir.Var("s", ir.ScalarType(DataType.INT32))
    e = s + 3
    assert isinstance(e, ir.Add)
    assert isinstance(e.left, ir.Cast) and e.left.type.dtype is DataType.INDEX
    assert e.type.dtype is DataType.INDEX


def test_index_and_int64_are_never_cast():
    n = ir.Var("n", ir.ScalarType(DataType.INT64))
    e = n + 1
    assert e.left is n and e.type.dtype is DataType.INT64


def test_int_float_mixing_is_rejected():
    f = ir.Var("f", ir.ScalarType(DataType.FP32))
    with pytest.raises(TypeError, match="requires same numeric dtype category, got fp32 and index"):
        f * 2


def test_tile_view_equal_to_implicit_is_stored_as_none():
    t = ir.TileType([16, 128], DataType.FP32, tile_view=ir.TileView(), memory_space=MemorySpace.Vec)
    assert t.tile_view is None
    mat = ir.TileType([128, 128], DataType.FP32, tile_view=ir.TileView(blayout=TileLayout.col_major,
                                                                        slayout=TileLayout.row_major),
                      memory_space=MemorySpace.Mat)
    assert mat.tile_view is None
    narrowed = ir.TileType([128, 128], DataType.FP32, tile_view=ir.TileView(valid_shape=[127, 128]),
                           memory_space=MemorySpace.Vec)
    assert narrowed.tile_view is not None and narrowed.tile_view.valid_shape[0].value == 127


def test_function_level_and_role_derive_from_type():
    body = ir.SeqStmts([])
    f = ir.Function("k", [], [], body, type=ir.FunctionType.InCore)
    assert (f.level, f.role) == (ir.Level.CHIP_DIE, ir.Role.SubWorker)
    with pytest.raises(ValueError, match="level"):
        ir.Function("k", [], [], body, type=ir.FunctionType.InCore, level=ir.Level.AIC)


def test_function_attrs_store_split_mode_as_int():
    f = ir.Function("k", [], [], ir.SeqStmts([]), attrs={"split": ir.SplitMode.UP_DOWN, "split_aiv": True})
    assert f.attrs == {"split": 1, "split_aiv": True}
    assert f.split is ir.SplitMode.UP_DOWN


def test_program_sorts_functions_by_name():
    fs = [ir.Function(n, [], [], ir.SeqStmts([])) for n in ("b", "a", "c")]
    p = ir.Program(fs, "P")
    assert [gv.name for gv in p.functions] == ["a", "b", "c"]
    assert p.get_function("b") is fs[0]


def test_an_ir_builder_called_without_span_records_the_callers_line():
    # As in PyPTO, span defaults to the caller location.
    from pypto.ir.op import tile_ops as T

    t = ir.Var("t", ir.TensorType([64, 64], DataType.FP32))
    line = sys._getframe().f_lineno + 1
    call = T.load(t, [0, 0], [64, 64])
    assert call.span.filename == __file__ and call.span.begin_line == line
    assert T.get_subblock_idx().span.begin_line == line + 2
    given = ir.Span("given.py", 3, 4)
    assert T.load(t, [0, 0], [64, 64], span=given).span == given
    assert T.load(t, [0, 0], [64, 64], None, ir.MemorySpace.Vec, False, given).span == given
    with pytest.raises(TypeError, match=r"load\(\) got an unexpected keyword argument 'bogus'"):
        T.load(t, [0, 0], [64, 64], bogus=1)


def test_a_call_takes_python_numbers_as_constants():
    x = ir.Var("x", ir.TensorType([16], DataType.FP32))
    call = ir.Call(ir.GlobalVar("f"), [x, 3, 2.5, True], ir.Span.unknown())
    assert call.args[0] is x
    assert [(type(a).__name__, a.type.dtype) for a in call.args[1:]] == [
        ("ConstInt", DataType.INDEX), ("ConstFloat", DataType.FP32), ("ConstBool", DataType.BOOL)]

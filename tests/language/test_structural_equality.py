"""Structural equality (docs/architecture.md, the core) as the round-trip tests rely on it: names, spans and comments are ignored,
and every kind of real difference is reported with its path and both sides printed."""

import re
import textwrap

import pytest

import pypto.language as pl
from pypto import ir
from pypto_core.ir import expr as E
from pypto_core.ir import stmt as S
from pypto_core.ir import types as T
from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import FunctionType, MemorySpace, ParamDirection, TileLayout
from pypto_core.ir.span import Span

INDEX = DataType.INDEX


def dims(*values: int) -> E.MakeTuple:
    return E.MakeTuple([E.ConstInt(v, INDEX) for v in values])


def build(*, names=("x", "t", "u"), op="tile.add", kwargs=None, load_kwargs=None, shape=64, memory=MemorySpace.Vec,
          view=None, attrs=None, call_attrs=None, direction=ParamDirection.In, comments=(), span=None):
    """`def f(x: Tensor[[shape]]): t = tile.load(x, ...); u = <op>(t, t); return u` with one knob per difference."""
    x = E.Var(names[0], T.TensorType([shape], DataType.FP32))
    tile_type = T.TileType([64], DataType.FP32, None, view, memory)
    load = E.Call(E.Op("tile.load"), [x, dims(0), dims(64), dims(64)],
                  load_kwargs if load_kwargs is not None else {"target_memory": MemorySpace.Vec}, tile_type, span=span)
    t = E.Var(names[1], tile_type, span)
    value = E.Call(E.Op(op), [t, t], kwargs or {}, call_attrs or {}, tile_type, span=span)
    u = E.Var(names[2], tile_type, span)
    body = S.SeqStmts([S.AssignStmt(t, load, span, leading_comments=comments), S.AssignStmt(u, value, span),
                       S.ReturnStmt([u], span)])
    return ir.Function("f", [(x, direction)], [tile_type], body, span, FunctionType.InCore, attrs=attrs)


def mismatch(a, b) -> str:
    with pytest.raises(ValueError) as info:
        ir.assert_structural_equal(a, b)
    assert not ir.structural_equal(a, b)
    return str(info.value)


def test_names_spans_and_comments_are_ignored():
    a = build()
    b = build(names=("input", "tile0", "sum"), comments=("a comment",), span=Span("other.py", 3, 4))
    ir.assert_structural_equal(a, b)
    assert ir.structural_hash(a) == ir.structural_hash(b)


def test_renamed_programs_parsed_from_text_are_equal():
    a = pl.parse(textwrap.dedent("""
        import pypto.language as pl

        @pl.program
        class A:
            @pl.function
            def helper(self, v: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                w = v * 2
                return w

            @pl.function
            def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                for i, (acc,) in pl.range(n, init_values=(0,)):
                    s = self.helper(acc + i)
                    r = pl.yield_(s)
                return r
    """))
    b = pl.parse(textwrap.dedent("""
        import pypto.language as pl

        @pl.program
        class B:  # program names are not compared
            @pl.function
            def helper(self, value: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                doubled = value * 2
                return doubled

            @pl.function
            def main(self, count: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                # comments are not compared either
                for k, (total,) in pl.range(count, init_values=(0,)):
                    step = self.helper(total + k)
                    result = pl.yield_(step)
                return result
    """))
    ir.assert_structural_equal(a, b)
    assert ir.structural_hash(a) == ir.structural_hash(b)


def test_kwargs_and_attrs_compare_as_maps():
    a = build(kwargs={"a": 1, "b": 2}, attrs={"split": 1, "split_aiv": True})
    b = build(kwargs={"b": 2, "a": 1}, attrs={"split_aiv": True, "split": 1})
    ir.assert_structural_equal(a, b)


@pytest.mark.parametrize(("lhs", "rhs", "path"), [
    # the op of a call
    (dict(op="tile.add"), dict(op="tile.mul"), "body[1].value.op"),
    # a kwarg value, and a kwarg of another Python type with an equal value (1 vs True)
    (dict(load_kwargs={"target_memory": MemorySpace.Vec}), dict(load_kwargs={"target_memory": MemorySpace.Mat}),
     "body[0].value.kwargs['target_memory']"),
    (dict(kwargs={"flag": 1}), dict(kwargs={"flag": True}), "body[1].value.kwargs['flag']"),
    (dict(kwargs={"flag": 1}), dict(kwargs={"other": 1}), "body[1].value.kwargs"),
    # a shape dimension (seen first where the parameter is defined)
    (dict(shape=64), dict(shape=32), "params[0].type.shape[0]"),
    # a memory space
    (dict(memory=MemorySpace.Vec), dict(memory=MemorySpace.Mat), "return_types[0].memory_space"),
    # one field of a tile view
    (dict(view=T.TileView(valid_shape=[32])), dict(view=T.TileView(valid_shape=[32], blayout=TileLayout.col_major)),
     "return_types[0].tile_view.blayout"),
    (dict(view=T.TileView(valid_shape=[32])), dict(view=T.TileView(valid_shape=[16])),
     "return_types[0].tile_view.valid_shape[0]"),
    (dict(view=None), dict(view=T.TileView(valid_shape=[32])), "return_types[0].tile_view"),
    # function and call attrs
    (dict(attrs={"split": 1}), dict(attrs={"split": 2}), "attrs['split']"),
    (dict(attrs={"split_aiv": True}), dict(attrs={"split_aiv": 1}), "attrs['split_aiv']"),
    (dict(call_attrs={"core_placement": "aiv"}), dict(call_attrs={}), "body[1].value.attrs"),
    # a parameter direction
    (dict(direction=ParamDirection.In), dict(direction=ParamDirection.Out), "param_directions[0]"),
])
def test_each_difference_is_reported_with_its_path(lhs, rhs, path):
    message = mismatch(build(**lhs), build(**rhs))
    assert message.startswith(f"Structural equality failed at {path}:"), message
    assert "\n  lhs: " in message and "\n  rhs: " in message  # both sides printed


def test_both_sides_are_printed_as_dsl():
    message = mismatch(build(op="tile.add"), build(op="tile.mul"))
    assert "lhs: Op('tile.add')" in message or "tile.add" in message.split("rhs:")[0]
    message = mismatch(build(shape=64), build(shape=32))
    assert re.search(r"lhs: 64\n  rhs: 32", message), message


def test_uses_must_follow_the_definition_map():
    x = E.Var("x", T.ScalarType(INDEX))
    y = E.Var("y", T.ScalarType(INDEX))

    def func(first, second):
        a = E.Var("a", T.ScalarType(INDEX))
        body = S.SeqStmts([S.AssignStmt(a, E.Add(first, second, INDEX)), S.ReturnStmt([a])])
        return ir.Function("f", [x, y], [T.ScalarType(INDEX)], body)

    ir.assert_structural_equal(func(x, y), func(x, y))
    message = mismatch(func(x, y), func(y, x))
    assert message.startswith("Structural equality failed at body[0].value.left:")


def test_free_variables_must_be_identical():
    free = E.Var("free", T.ScalarType(INDEX))
    other = E.Var("free", T.ScalarType(INDEX))
    a = S.EvalStmt(E.Add(free, E.ConstInt(1, INDEX), INDEX))
    b = S.EvalStmt(E.Add(other, E.ConstInt(1, INDEX), INDEX))
    ir.assert_structural_equal(a, a)
    assert mismatch(a, b).startswith("Structural equality failed at expr.left:")
    ir.assert_structural_equal(a, b, enable_auto_mapping=True)


def test_constant_dtypes():
    index_vs_int64 = (E.ConstInt(3, DataType.INDEX), E.ConstInt(3, DataType.INT64))
    ir.assert_structural_equal(*index_vs_int64)  # INDEX and INT64 constants are the same
    assert "constants differ" in mismatch(E.ConstInt(3, DataType.INDEX), E.ConstInt(3, DataType.INT32))
    assert "constants differ" in mismatch(E.ConstFloat(1.0, DataType.FP32), E.ConstFloat(1.0, DataType.FP16))


def test_program_paths_name_the_function():
    def program(k: float):
        return pl.parse(textwrap.dedent(f"""
            import pypto.language as pl

            @pl.program
            class P:
                @pl.function
                def main(self, a: pl.Scalar[pl.FP32]) -> pl.Scalar[pl.FP32]:
                    b = a * {k}
                    return b
        """))

    message = mismatch(program(2.0), program(3.0))
    assert message.startswith("Structural equality failed at functions[main].body[0].value.right:"), message
    assert "lhs: 2.0\n  rhs: 3.0" in message

"""Printed names (docs/dsl.md, the printed form: disambiguation; `__FREE_VAR`) and comments/docstrings."""

import textwrap

import pytest

import pypto.language as pl
from pypto import ir
from pypto_core.ir import expr as E
from pypto_core.ir import stmt as S
from pypto_core.ir import types as T
from pypto_core.ir.dtypes import DataType
from pypto_core.language.roundtrip import assert_roundtrip

INDEX = T.ScalarType(DataType.INDEX)


def test_two_loop_variables_named_i():
    f = pl.parse(textwrap.dedent("""
        @pl.function
        def f(n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
            for i in pl.range(n):
                a = i + 1
            for i in pl.range(n):
                b = i + 2
            return n
    """))
    text = ir.python_print(f)
    assert "    for i in pl.range(n):\n        a: pl.Scalar[pl.INDEX] = i + 1" in text
    assert "    for i_1 in pl.range(n):\n        b: pl.Scalar[pl.INDEX] = i_1 + 2" in text
    assert_roundtrip(f)


def test_unique_names_are_reserved_before_colliding_ones():
    # Three Vars hinted x, x, x_1: the unique `x_1` keeps its name, so the second `x` becomes `x_2`.
    x_param = E.Var("x", INDEX)
    x_local = E.Var("x", INDEX)
    x_1 = E.Var("x_1", INDEX)
    body = S.SeqStmts([S.AssignStmt(x_1, E.Add(x_param, E.ConstInt(1, DataType.INDEX), DataType.INDEX)),
                       S.AssignStmt(x_local, E.Mul(x_1, x_param, DataType.INDEX)),
                       S.ReturnStmt([x_local])])
    func = ir.Function("f", [x_param], [INDEX], body)
    assert ir.python_print(func) == textwrap.dedent("""\
        @pl.function
        def f(x: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
            x_1: pl.Scalar[pl.INDEX] = x + 1
            x_2: pl.Scalar[pl.INDEX] = x_1 * x
            return x_2""")
    assert_roundtrip(func)


def test_pass_style_names_collide_and_are_suffixed():
    a0 = E.Var("a_tile__ssa_v0", INDEX)
    a1 = E.Var("a_tile__ssa_v0", INDEX)
    body = S.SeqStmts([S.AssignStmt(a1, E.Add(a0, E.ConstInt(1, DataType.INDEX), DataType.INDEX)),
                       S.ReturnStmt([a1])])
    text = ir.python_print(ir.Function("k", [a0], [INDEX], body))
    assert "a_tile__ssa_v0_1: pl.Scalar[pl.INDEX] = a_tile__ssa_v0 + 1" in text


def test_free_variables_are_marked():
    n = E.Var("n", INDEX)
    ghost = E.Var("ghost", INDEX)
    body = S.SeqStmts([S.AssignStmt(E.Var("y", INDEX), E.Add(n, ghost, DataType.INDEX)), S.ReturnStmt([n])])
    func = ir.Function("f", [n], [INDEX], body)
    assert "y: pl.Scalar[pl.INDEX] = n + ghost__FREE_VAR" in ir.python_print(func)
    program = ir.Program([func], "P")
    assert "ghost__FREE_VAR" in ir.python_print(program)
    # Well-formed programs never show the marker.
    ok = pl.parse("@pl.function\ndef f(n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:\n    return n + 1\n")
    assert "__FREE_VAR" not in ir.python_print(ok)


def test_dynamic_dims_print_in_the_dynamic_block_not_as_free_vars():
    m = E.Var("M", INDEX)
    m_other = E.Var("M", INDEX)  # a second dynamic dim with the same hint: disambiguated program-wide
    a = E.Var("a", T.TensorType([m, 64], DataType.FP32))
    b = E.Var("b", T.TensorType([m_other, 64], DataType.FP32))
    func = ir.Function("f", [a, b], [a.type], S.ReturnStmt([a]))
    text = ir.python_print(ir.Program([func], "P"))
    assert 'M = pl.dynamic("M")\nM_1 = pl.dynamic("M_1")\n' in text
    assert "def f(self, a: pl.Tensor[[M, 64], pl.FP32], b: pl.Tensor[[M_1, 64], pl.FP32])" in text
    assert "__FREE_VAR" not in text
    assert_roundtrip(ir.Program([func], "P"))


SOURCE_WITH_COMMENTS = '''
@pl.function
def f(x: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64], pl.FP32]:
    """Adds one.

    Twice, in fact."""
    # first step
    y = pl.add(x, 1.0)
    for i in pl.range(n):
        # inside the loop
        # two lines
        y = pl.add(y, 1.0)  # trailing comments are dropped
    "a bare string is a comment too"
    return y
'''


def test_comments_and_docstrings_become_leading_comments():
    f = pl.parse(SOURCE_WITH_COMMENTS)
    first, loop, ret = ir.flatten_to_stmts(f.body)
    assert first.leading_comments == ("Adds one.", "Twice, in fact.", "first step")
    assert loop.body.leading_comments == ("inside the loop", "two lines")
    assert ret.leading_comments == ("a bare string is a comment too",)
    text = ir.python_print(f)
    assert text == textwrap.dedent("""\
        @pl.function
        def f(x: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64], pl.FP32]:
            # Adds one.
            # Twice, in fact.
            # first step
            y: pl.Tensor[[64], pl.FP32] = pl.tensor.adds(x, 1.0)
            for i in pl.range(n):
                # inside the loop
                # two lines
                y: pl.Tensor[[64], pl.FP32] = pl.tensor.adds(y, 1.0)
            # a bare string is a comment too
            return y""")
    assert_roundtrip(f)


def test_comment_before_func_attr_and_else():
    f = pl.parse(textwrap.dedent('''
        @pl.function(type=pl.FunctionType.InCore)
        def f(n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
            """Doc."""
            pl.func_attr({"split_aiv": True})
            if n > 0:
                a = n + 1
            else:
                # in the else branch
                a = n - 1
            return a
    '''))
    text = assert_roundtrip(f).text
    assert '    pl.func_attr({"split_aiv": True})\n    # Doc.\n    if n > 0:' in text
    assert "    else:\n        # in the else branch\n        a: " in text


@pytest.mark.parametrize("comment", ["", "x = 1", "déjà vu", "trailing spaces   "])
def test_unusual_comment_texts_roundtrip(comment):
    stmt = S.ReturnStmt([], leading_comments=(comment,))
    text = assert_roundtrip(ir.Function("f", [], [], stmt)).text
    assert text.splitlines()[2].startswith("    #")

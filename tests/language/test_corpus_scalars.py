"""Scalar expressions: operators, promotion, casts, constants, scalar annotations.

Every program must survive print -> parse unchanged; the IR-shape tests pin what the parser builds.
"""

import textwrap

import pytest

import pypto.language as pl
from pypto import ir
from pypto_core.ir import expr as E
from pypto_core.ir.dtypes import DataType
from pypto_core.language.roundtrip import assert_roundtrip

CASES = {
    "arithmetic": """
        @pl.function
        def f(a: pl.Scalar[pl.INDEX], b: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
            x = a + b * 2 - 1
            y = (a - b) // 3 % 5
            z = a ** 2 + -b
            w = (x << 2) >> 1
            v = a & b | a ^ b
            u = ~a
            return x + y + z + w + v + u
    """,
    "promotion": """
        @pl.function
        def f(a: pl.Scalar[pl.INT32], b: pl.Scalar[pl.INT64], c: pl.Scalar[pl.FP16], d: pl.Scalar[pl.FP32],
              e: pl.Scalar[pl.INT8]) -> pl.Scalar[pl.INT64]:
            x = a + 3
            y = a * b
            z = c + d
            w = e + a
            v = b + x
            return y
    """,
    "comparisons_and_logic": """
        @pl.function
        def f(a: pl.Scalar[pl.INDEX], b: pl.Scalar[pl.INDEX], c: pl.Scalar[pl.BOOL]) -> pl.Scalar[pl.BOOL]:
            p = a == b
            q = a != b and a < b
            r = a <= b or a > b and not c
            s = (a >= b) == c
            t = not (p or q)
            u = c ^ p
            return p
    """,
    "min_max_abs_cast": """
        @pl.function
        def f(a: pl.Scalar[pl.INT32], b: pl.Scalar[pl.INDEX], d: pl.Scalar[pl.FP32]) -> pl.Scalar[pl.INDEX]:
            m = pl.min(a, b) + pl.max(b, 4)
            k = abs(b - 7)
            c = pl.cast(a, pl.INT64)
            h = pl.cast(d, pl.FP16)
            g = pl.cast(b, pl.FP32) / d
            return m
    """,
    "constants": """
        @pl.function
        def f(a: pl.Scalar[pl.INT32]) -> pl.Scalar[pl.INT32]:
            x = pl.const(5, pl.INT32)
            y = a + x
            z = pl.const(-2.5, pl.FP16)
            w = pl.const(0.125, pl.FP32)
            q = -3
            r = 1e-07
            s = 2.0
            t = True
            u = pl.const(32, pl.INDEX) + pl.const(32, pl.INDEX)
            return y
    """,
    "constant_subtrees": """
        @pl.function
        def f(a: pl.Scalar[pl.INDEX], d: pl.Scalar[pl.FP32]) -> pl.Scalar[pl.INDEX]:
            x = a * (pl.const(2, pl.INDEX) + pl.const(3, pl.INDEX))
            y = d * (pl.const(2.0, pl.FP32) - pl.const(0.5, pl.FP32))
            z = (-2) ** a
            w = a - -3
            return x
    """,
    "scalar_annotations": """
        @pl.function
        def f(a: pl.Scalar[pl.INDEX], n: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INDEX]:
            x: pl.Scalar[pl.INDEX] = a + 1
            x = x + 2
            y: pl.Scalar[pl.INT64] = 0
            z: pl.Scalar[pl.INT32] = 7
            w: pl.Scalar[pl.INT64] = a + n
            b: pl.Scalar[pl.BOOL] = a > 0
            return x
    """,
    "closure_constants": """
        import pypto.language as pl

        TILE = 64
        ROWS = TILE * 2
        SCALE = 0.5

        @pl.function
        def f(a: pl.Scalar[pl.INDEX], d: pl.Scalar[pl.FP32]) -> pl.Scalar[pl.INDEX]:
            x = a * ROWS + TILE
            y = d * SCALE
            return x
    """,
    "augmented_assignment": """
        @pl.function
        def f(a: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
            x = a
            x += 4
            x *= 2
            x //= 3
            return x
    """,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_roundtrip(name):
    assert_roundtrip(textwrap.dedent(CASES[name]))


def parse_body(src: str) -> list:
    func = pl.parse(textwrap.dedent(src))
    return ir.flatten_to_stmts(func.body)


def test_int32_plus_literal_casts_to_index():
    # As in PyPTO: `s + 3` with s: Scalar[INT32] -> Add(Cast(s, INDEX), 3).
    (stmt, _) = parse_body("""
        @pl.function
        def f(s: pl.Scalar[pl.INT32]) -> pl.Scalar[pl.INDEX]:
            x = s + 3
            return x
    """)
    value = stmt.value
    assert isinstance(value, E.Add) and value.type.dtype is DataType.INDEX
    assert isinstance(value.left, E.Cast) and value.left.type.dtype is DataType.INDEX
    assert isinstance(value.right, E.ConstInt) and value.right.value == 3
    assert ir.python_print(value) == "pl.cast(s, pl.INDEX) + 3"


def test_int32_times_int64_casts_the_narrow_side():
    (stmt, _) = parse_body("""
        @pl.function
        def f(n: pl.Scalar[pl.INT32], m: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:
            x = n + m
            return x
    """)
    assert ir.python_print(stmt.value) == "pl.cast(n, pl.INT64) + m"
    assert stmt.var.type.dtype is DataType.INT64


def test_index_and_int64_never_cast():
    (stmt, _) = parse_body("""
        @pl.function
        def f(i: pl.Scalar[pl.INDEX], m: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INDEX]:
            x = i + m
            return x
    """)
    assert isinstance(stmt.value.left, E.Var) and isinstance(stmt.value.right, E.Var)
    assert stmt.value.type.dtype is DataType.INDEX  # a tie keeps the left dtype


def test_literals_and_negative_folding():
    stmts = parse_body("""
        @pl.function
        def f():
            a = 3
            b = -3
            c = 2.5
            d = pl.const(7, pl.INT8)
            e = pl.const(-1.5, pl.FP16)
    """)
    values = [s.value for s in stmts]
    assert [type(v) for v in values] == [E.ConstInt, E.ConstInt, E.ConstFloat, E.ConstInt, E.ConstFloat]
    assert [v.value for v in values] == [3, -3, 2.5, 7, -1.5]
    assert [v.type.dtype for v in values] == [DataType.INDEX, DataType.INDEX, DataType.FP32, DataType.INT8,
                                             DataType.FP16]


def test_annotation_restamps_index_literal():
    # As in PyPTO: `x: pl.Scalar[pl.INT64] = 0` -> ConstInt(0, INT64).
    (stmt,) = parse_body("""
        @pl.function
        def f():
            x: pl.Scalar[pl.INT64] = 0
    """)
    assert stmt.value.type.dtype is DataType.INT64 and stmt.var.type.dtype is DataType.INT64


def test_closure_arithmetic_is_folded():
    stmts = parse_body("""
        import pypto.language as pl

        M = 16

        @pl.function
        def f():
            x = M * 2 + 1
    """)
    assert isinstance(stmts[0].value, E.ConstInt) and stmts[0].value.value == 33


def test_chained_and_is_left_associative():
    (stmt, _) = parse_body("""
        @pl.function
        def f(a: pl.Scalar[pl.BOOL], b: pl.Scalar[pl.BOOL], c: pl.Scalar[pl.BOOL]) -> pl.Scalar[pl.BOOL]:
            x = a and b and c
            return x
    """)
    assert isinstance(stmt.value, E.And) and isinstance(stmt.value.left, E.And)


@pytest.mark.parametrize(("build", "text"), [
    (lambda a, b: E.Sub(a, E.Sub(b, a, DataType.INDEX), DataType.INDEX), "a - (b - a)"),
    (lambda a, b: E.Sub(E.Sub(a, b, DataType.INDEX), a, DataType.INDEX), "a - b - a"),
    (lambda a, b: E.Pow(E.Pow(a, b, DataType.INDEX), a, DataType.INDEX), "(a ** b) ** a"),
    (lambda a, b: E.Pow(a, E.Pow(b, a, DataType.INDEX), DataType.INDEX), "a ** b ** a"),
    (lambda a, b: E.Mul(E.Add(a, b, DataType.INDEX), a, DataType.INDEX), "(a + b) * a"),
    (lambda a, b: E.Neg(E.Add(a, b, DataType.INDEX), DataType.INDEX), "-(a + b)"),
    (lambda a, b: E.Neg(E.Min(a, b, DataType.INDEX), DataType.INDEX), "-pl.min(a, b)"),  # a call: no parentheses
    (lambda a, b: E.Pow(E.ConstInt(-2, DataType.INDEX), a, DataType.INDEX), "(-2) ** a"),
    (lambda a, b: E.Eq(E.Lt(a, b, DataType.BOOL), E.ConstBool(True), DataType.BOOL), "(a < b) == True"),
    (lambda a, b: E.Xor(E.Lt(a, b, DataType.BOOL), E.ConstBool(True), DataType.BOOL), "(a < b) ^ True"),
    (lambda a, b: E.Not(E.ConstBool(True), DataType.BOOL), "not True"),
    (lambda a, b: E.Add(a, E.Add(E.ConstInt(1, DataType.INDEX), E.ConstInt(2, DataType.INDEX), DataType.INDEX),
                        DataType.INDEX), "a + (pl.const(1, pl.INDEX) + pl.const(2, pl.INDEX))"),
])
def test_printed_expression_reparses_to_the_same_tree(build, text):
    a, b = E.Var("a", ir.ScalarType(DataType.INDEX)), E.Var("b", ir.ScalarType(DataType.INDEX))
    expr = build(a, b)
    assert ir.python_print(expr) == text
    assign = ir.AssignStmt(E.Var("r", expr.type), expr)
    func = ir.Function("f", [a, b], [], assign)
    assert_roundtrip(func)

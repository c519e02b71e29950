"""Printer details (docs/dsl.md, the printed form) that the corpus does not reach through parsing: entry points,
prefixes, concise mode, literal spellings, and statement forms only passes produce."""

import math
import textwrap

import pytest

import pypto.language as pl
from pypto import ir
from pypto_core.ir import expr as E
from pypto_core.ir import stmt as S
from pypto_core.ir import types as T
from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import FunctionType, MemorySpace, SplitMode, TileLayout
from pypto_core.language.roundtrip import assert_roundtrip, missing_ops

INDEX = T.ScalarType(DataType.INDEX)
SOURCE = textwrap.dedent("""
    import pypto.language as pl

    @pl.program
    class P:
        @pl.function
        def f(self, x: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64], pl.FP32]:
            y = pl.add(x, 1.0)
            for i, (acc,) in pl.range(n, init_values=(y,)):
                r = pl.yield_(pl.mul(acc, 2.0))
            return r
""")


def test_other_prefix_prints_and_parses():
    program = pl.parse(SOURCE)
    text = ir.python_print(program, prefix="plx")
    assert text.startswith("# pypto.program: P\nfrom pypto import language as plx\n\n@plx.program\nclass P:\n")
    assert "pl." not in text.replace("plx.", "")
    ir.assert_structural_equal(program, pl.parse(text))


def test_format_flag_and_as_python_agree():
    program = pl.parse(SOURCE)
    assert ir.python_print(program, format=True) == ir.python_print(program, format=False)
    assert program.as_python() == ir.python_print(program)
    from pypto.ir.printer import python_print

    assert python_print(program) == ir.python_print(program)


def test_concise_drops_assignment_and_yield_annotations():
    text = ir.python_print(pl.parse(SOURCE), concise=True)
    assert "        y = pl.tensor.adds(x, 1.0)\n" in text
    assert "            r = pl.yield_(pl.tensor.muls(acc, 2.0))\n" in text


def test_types_print_on_their_own():
    tile = T.TileType([16, 128], DataType.FP16, None, T.TileView(valid_shape=[8, 128]), MemorySpace.Vec)
    assert str(tile) == "pl.Tile[[16, 128], pl.FP16, pl.Mem.Vec, pl.TileView(valid_shape=[8, 128])]"
    assert ir.python_print(tile) == str(tile)
    assert str(T.TupleType([])) == "pl.Tuple[()]"
    assert str(T.UnknownType()) == "pl.UnknownType"
    assert str(T.TensorType([4, 4], DataType.INT8, T.MemRef("gm", 16, 64))) == \
        'pl.Tensor[[4, 4], pl.INT8, pl.MemRef("gm", pl.const(16, pl.INT64), 64)]'
    mat = T.TileType([128, 128], DataType.FP32, memory_space=MemorySpace.Mat)
    assert ir.python_print(mat) == "pl.Tile[[128, 128], pl.FP32, pl.Mem.Mat]"
    assert ir.python_print(mat, explicit_layout=True) == (
        "pl.Tile[[128, 128], pl.FP32, pl.Mem.Mat, pl.TileView(blayout=pl.TileLayout.col_major, "
        "slayout=pl.TileLayout.row_major, fractal=512)]")


@pytest.mark.parametrize(("value", "dtype", "text"), [
    (2.0, DataType.FP32, "2.0"), (0.5, DataType.FP32, "0.5"), (1e16, DataType.FP32, "1e+16"),
    (1e-07, DataType.FP32, "1e-07"), (-1.5, DataType.FP32, "-1.5"), (0.1, DataType.FP32, "0.1"),
    (2.0, DataType.FP16, "pl.const(2.0, pl.FP16)"), (math.inf, DataType.FP32, 'float("inf")'),
    # The shortest `%.<p>g` text, as PyPTO prints floats, not Python's repr: %g writes a power of ten with an exponent.
    (100.0, DataType.FP32, "1e+02"), (10.0, DataType.FP32, "1e+01"), (1e5, DataType.FP32, "1e+05"),
    (128.0, DataType.FP32, "128.0"), (-1e30, DataType.FP32, "-1e+30"), (1 / 3, DataType.FP32, "0.3333333333333333"),
    (-0.0, DataType.FP32, "-0.0"), (60.0, DataType.FP32, "6e+01"),
])
def test_float_literals(value, dtype, text):
    const = E.ConstFloat(value, dtype)
    assert ir.python_print(const) == text
    func = ir.Function("f", [], [const.type], S.ReturnStmt([const]))
    assert_roundtrip(func)


@pytest.mark.parametrize(("value", "dtype", "text"), [
    (3, DataType.INDEX, "3"), (-3, DataType.INDEX, "-3"), (3, DataType.INT64, "pl.const(3, pl.INT64)"),
    (7, DataType.UINT8, "pl.const(7, pl.UINT8)"),
])
def test_integer_literals(value, dtype, text):
    const = E.ConstInt(value, dtype)
    assert ir.python_print(const) == text
    assert_roundtrip(ir.Function("f", [], [const.type], S.ReturnStmt([const])))


def test_empty_bodies_and_programs():
    assert ir.python_print(ir.Function("f", [], [], S.SeqStmts([]))) == "@pl.function\ndef f():\n    pass"
    empty = ir.Program([], "Empty")
    assert ir.python_print(empty).endswith("@pl.program\nclass Empty:\n    pass")
    assert ir.python_print(ir.Program([], "")).startswith("# pypto.program: Program\n")


def test_yield_directly_in_a_function_body_prints_as_return():
    n = E.Var("n", INDEX)
    func = ir.Function("f", [n], [INDEX], S.SeqStmts([S.YieldStmt([n])]))
    assert ir.python_print(func).endswith("    return n")


@pytest.mark.skipif(bool(missing_ops("tile.get_subblock_idx")), reason="tile.get_subblock_idx not registered yet")
@pytest.mark.parametrize("region_first", [True, False])
def test_phi_yield_inside_a_region_prints_bare(region_first):
    # After ConvertToSSA an if-branch whose body is one region gets its phi yield inside the region, printed bare (docs/dsl.md, if and yield).
    from pypto_core.ops.registry import create_op_call

    n, lane = E.Var("n", INDEX), E.Var("aiv_id", INDEX)
    v, w, phi = E.Var("x", INDEX), E.Var("x", INDEX), E.Var("x__phi_v4", INDEX)
    region = S.SplitAivScopeStmt(SplitMode.UP_DOWN, 2, body=S.SeqStmts([
        S.AssignStmt(lane, create_op_call("tile.get_subblock_idx", [])),
        S.AssignStmt(v, E.Add(n, lane, DataType.INDEX)),
        S.YieldStmt([v])]))
    other = S.SeqStmts([S.AssignStmt(w, E.Sub(n, E.ConstInt(1), DataType.INDEX)), S.YieldStmt([w])])
    branches = (region, other) if region_first else (other, region)
    cond = E.Gt(n, E.ConstInt(0), DataType.BOOL)
    func = ir.Function("f", [n], [INDEX], S.SeqStmts([S.IfStmt(cond, *branches, [phi]), S.ReturnStmt([phi])]),
                       type=FunctionType.InCore)
    text = assert_roundtrip(func).text
    assert "            pl.yield_(x" in text  # bare, at region indentation
    assert "        x__phi_v4: pl.Scalar[pl.INDEX] = pl.yield_(x" in text


def test_op_names_and_kwarg_spellings():
    t = E.Var("t", T.TileType([16], DataType.INT32, memory_space=MemorySpace.Vec))
    call = E.Call(E.Op("tile.and"), [t, t], {"flag": True, "count": 3, "name": "a'b", "layout": TileLayout.col_major,
                                             "dt": DataType.BF16, "mem": MemorySpace.Acc, "ratio": 0.25},
                  {"core_placement": "aiv"}, t.type)
    assert ir.python_print(call) == (
        "pl.tile.and_(t, t, flag=True, count=3, name='a\\'b', layout=pl.TileLayout.col_major, dt=pl.BF16, "
        'mem=pl.Mem.Acc, ratio=0.25, attrs={"core_placement": "aiv"})')
    dist = E.Call(E.Op("pld.system.notify"), [t], {}, T.UnknownType())
    assert ir.python_print(dist) == "system.notify(t)"


def test_statement_and_expression_entry_points():
    n = E.Var("n", INDEX)
    stmt = S.ForStmt(E.Var("i", INDEX), 0, n, 1, [], S.AssignStmt(E.Var("k", INDEX), n), [])
    assert ir.python_print(stmt) == "for i in pl.range(n):\n    k: pl.Scalar[pl.INDEX] = n"
    assert ir.python_print(E.Min(n, E.ConstInt(4), DataType.INDEX)) == "pl.min(n, 4)"
    assert ir.python_print(E.Cast(n, DataType.INT32)) == "pl.cast(n, pl.INT32)"
    assert ir.python_print(E.Abs(n, DataType.INDEX)) == "abs(n)"
    assert ir.python_print(E.MakeTuple([])) == "[]"


def test_a_variable_named_like_the_module_prints_under_another_name():
    # Printed as `pl: pl.Tensor[...] = ...`, `pl = self.g(x)` would make every later `pl.` read the variable when
    # the text is parsed back. The printer reserves the names it reads as modules (docs/dsl.md, the printed form).
    program = pl.parse(textwrap.dedent('''
        import pypto.language as pl

        @pl.program
        class P:
            @pl.function
            def g(self, x: pl.Tensor[[16], pl.FP32]) -> pl.Tensor[[16], pl.FP32]:
                return x

            @pl.function
            def main(self, x: pl.Tensor[[16], pl.FP32]) -> pl.Tensor[[16], pl.FP32]:
                pl = self.g(x)
                y = self.g(x)
                return y
        '''))
    text = assert_roundtrip(program).text
    assert "pl_1: pl.Tensor[[16], pl.FP32] = self.g(x)" in text


@pytest.mark.skipif(bool(missing_ops("pld.system.notify")), reason="pld ops not registered")
def test_a_variable_named_like_an_unprefixed_pld_namespace_prints_under_another_name():
    # `pld.system.notify` prints as `system.notify`: a variable named `system` in that function is renamed,
    # one in a function printing no pld op keeps its name.
    program = pl.parse(textwrap.dedent('''
        import pypto.language as pl
        import pypto.language.distributed as pld

        @pl.program
        class P:
            @pl.function
            def main(self, a: pl.Tensor[[16, 64], pl.FP32], sig: pl.InOut[pld.DistributedTensor[[4], pl.INT32]]) -> pl.Tensor[[16, 64], pl.FP32]:
                system = pl.add(a, a)
                pld.system.notify(sig, 0, [0], 7, op=1)
                return system

            @pl.function
            def other(self, a: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
                system = pl.add(a, a)
                return system
        '''))
    text = assert_roundtrip(program).text
    assert "system_1: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.add(a, a)" in text
    assert "        system: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.add(a, a)" in text


def test_a_call_with_only_attrs_prints_them_alone_and_parses_back():
    # No positional argument, no kwarg, attrs: `op(attrs={...})`, not `op(, attrs={...})`.
    call = ir.create_op_call("tile.get_block_idx", []).with_fields(attrs={"k": True})
    func = ir.Function("f", [], [INDEX], ir.SeqStmts([ir.AssignStmt(ir.Var("b", call.type), call),
                                                      ir.ReturnStmt([ir.ConstInt(0, DataType.INDEX)])]),
                       type=FunctionType.InCore)
    text = ir.python_print(func)
    assert 'b: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx(attrs={"k": True})' in text
    ir.assert_structural_equal(func, pl.parse(text))

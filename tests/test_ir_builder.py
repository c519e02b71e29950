"""`ir.IRBuilder` (docs/ir_builder.md): the IR it builds is the IR the parser builds for the same program
(structurally equal, printed alike) and runs alike on the reference machine; its errors are PyPTO's."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import pypto.language as pl
from pypto import ir
from pypto.ir import IRBuilder
from pypto.ir.op import tensor_ops as tensor
from pypto.ir.op import tile_ops as tile
from pypto_core.interp import make_inputs, run_program
from pypto_core.ir.dtypes import DataType
from pypto_core.testing import same_results

FP32, INDEX = DataType.FP32, DataType.INDEX
T16 = ir.TensorType([16, 64], FP32)
SPAN = ir.Span.unknown()


def header(body: str) -> str:
    return "import pypto.language as pl\n\n" + body


def same_ir(built: ir.Program | ir.Function, text: str) -> ir.Program | ir.Function:
    """The parsed program of `text`, after checking the built one prints alike and is structurally equal."""
    parsed = pl.parse(header(text))
    built_text, parsed_text = ir.python_print(built, format=False), ir.python_print(parsed, format=False)
    assert built_text == parsed_text, f"built:\n{built_text}\nparsed:\n{parsed_text}"
    ir.assert_structural_equal(built, parsed)
    return parsed


def yield_(*values: ir.Expr) -> ir.YieldStmt:
    return ir.YieldStmt(list(values), SPAN)


def index_var(ib: IRBuilder, name: str) -> ir.Var:
    return ib.var(name, ir.ScalarType(INDEX))


# -- the harness can fail ---------------------------------------------------------------------------------------
def test_a_builder_program_that_differs_from_the_text_is_caught():
    ib = IRBuilder()
    with ib.function("f") as f:
        x = f.param("x", T16)
        f.return_type(T16)
        ib.return_stmt(ib.let("y", tensor.mul(x, x)))
    with pytest.raises(AssertionError, match="tensor.mul"):
        same_ir(f.get_result(), """
@pl.function
def f(x: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
    y = pl.add(x, x)
    return y
""")
    with pytest.raises(ValueError, match="ops differ"):
        ir.assert_structural_equal(f.get_result(), pl.parse(header("""
@pl.function
def f(x: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
    y = pl.add(x, x)
    return y
""")))


# -- the page's checked example ---------------------------------------------------------------------------------
PAGE_EXAMPLE = """# pypto.program: demo
import pypto.language as pl

@pl.program
class demo:
    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)
    def kern(x: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[16, 64], pl.FP32]:
        y: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.add(x, x)
        for i, (acc,) in pl.range(n, init_values=(y,)):
            z: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.muls(acc, 2.0)
            res: pl.Tensor[[16, 64], pl.FP32] = pl.yield_(z)
        if n < 4:
            a: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.exp(res)
            phi: pl.Tensor[[16, 64], pl.FP32] = pl.yield_(a)
        else:
            phi: pl.Tensor[[16, 64], pl.FP32] = pl.yield_(res)
        return phi
    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
        r: pl.Tensor[[16, 64], pl.FP32] = self.kern(x, 3)
        return r"""


def build_page_example() -> ir.Program:
    ib = IRBuilder()
    with ib.program("demo") as prog:
        kern = prog.declare_function("kern")
        with ib.function("kern", type=ir.FunctionType.InCore) as f:
            x = f.param("x", T16)
            n = f.param("n", ir.ScalarType(INDEX))
            f.return_type(T16)
            y = ib.let("y", tensor.add(x, x))
            with ib.for_loop(index_var(ib, "i"), 0, n, 1) as loop:
                acc = loop.iter_arg("acc", y)
                loop.return_var("res")
                ib.emit(yield_(ib.let("z", tensor.muls(acc, 2.0))))
            res = loop.output()
            with ib.if_stmt(n < 4) as branch:
                branch.return_var("phi", T16)
                ib.emit(yield_(ib.let("a", tensor.exp(res))))
                branch.else_()
                ib.emit(yield_(res))
            ib.return_stmt(branch.output())
        prog.add_function(f.get_result())
        with ib.function("main", type=ir.FunctionType.Orchestration) as f:
            x = f.param("x", T16)
            f.return_type(T16)
            ib.return_stmt(ib.let("r", ir.Call(kern, [x, 3], SPAN)))
        prog.add_function(f.get_result())
    return prog.get_result()


def test_the_checked_example_prints_as_pypto_prints_it_and_equals_its_parse():
    built = build_page_example()
    assert ir.python_print(built, format=False) == PAGE_EXAMPLE
    ir.assert_structural_equal(built, pl.parse(PAGE_EXAMPLE))


def test_the_checked_example_runs_like_its_parse():
    built = build_page_example()
    same_results(pl.parse(PAGE_EXAMPLE), built)
    x = make_inputs(built.get_function("main"), seed=3)["x"]
    out = run_program(built, {"x": x})
    expected = np.exp((x + x) * 8)  # n = 3 < 4: exp of (x + x) doubled three times
    (result,) = out.values()
    np.testing.assert_allclose(result, expected, rtol=1e-5)


# -- functions and parameters -----------------------------------------------------------------------------------
def test_parameters_keep_their_directions_and_order():
    ib = IRBuilder()
    with ib.function("f") as f:
        x = f.param("x", T16)
        out = f.param("out", T16, direction=ir.ParamDirection.Out)
        acc = f.param("acc", T16, direction=ir.ParamDirection.InOut)
        f.return_type(T16)
        y = ib.let("y", tensor.add(x, acc))
        ib.assign(out, tensor.assemble(out, y, [0, 0]))
        ib.return_stmt(out)
    built = f.get_result()
    assert built.param_directions == (ir.ParamDirection.In, ir.ParamDirection.Out, ir.ParamDirection.InOut)
    same_ir(built, """
@pl.function
def f(x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
      acc: pl.InOut[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
    y = pl.add(x, acc)
    out = pl.assemble(out, y, [0, 0])
    return out
""")


def test_function_types_give_level_and_role_and_attrs_merge():
    ib = IRBuilder()
    with ib.program("P") as prog:
        with ib.function("k", type=ir.FunctionType.InCore, attrs={"slot_num": 4}) as f:
            a = f.param("a", T16)
            out = f.param("out", T16, direction=ir.ParamDirection.Out)
            f.return_type(T16)
            ib.add_function_attrs({"split": ir.SplitMode.UP_DOWN})
            t = ib.let("t", tile.load(a, [0, 0], [16, 64]))
            ib.eval_stmt(tile.store(tile.muls(t, 2.0), [0, 0], out))
            ib.return_stmt(out)
        prog.add_function(f.get_result())
    built = prog.get_result()
    k = built.get_function("k")
    assert (k.level, k.role, k.attrs) == (ir.Level.CHIP_DIE, ir.Role.SubWorker, {"slot_num": 4, "split": 1})
    same_ir(built, """
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore, attrs={"slot_num": 4, "split": pl.SplitMode.UP_DOWN})
    def k(self, a: pl.Tensor[[16, 64], pl.FP32],
          out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.load(a, [0, 0], [16, 64])
        pl.store(pl.mul(t, 2.0), [0, 0], out)
        return out
""")


def test_an_empty_function_body_is_an_empty_sequence_and_one_statement_stands_alone():
    ib = IRBuilder()
    with ib.function("empty") as f:
        pass
    assert isinstance(f.get_result().body, ir.SeqStmts) and len(f.get_result().body) == 0
    with ib.function("one") as g:
        x = g.param("x", T16)
        g.return_type(T16)
        ib.return_stmt(x)
    assert isinstance(g.get_result().body, ir.ReturnStmt)
    same_ir(g.get_result(), """
@pl.function
def one(x: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
    return x
""")


def test_return_forms_bare_single_several_and_literals():
    ib = IRBuilder()
    with ib.function("bare") as f:
        ib.return_stmt()
    assert f.get_result().body.value == ()
    with ib.function("empty_list") as f:
        ib.return_stmt([])
    assert f.get_result().body.value == ()
    with ib.function("pair") as f:
        x = f.param("x", T16)
        f.return_type(T16)
        f.return_type(ir.ScalarType(INDEX))
        ib.return_stmt([x, 7])
    ret = f.get_result().body
    assert isinstance(ret.value[1], ir.ConstInt) and ret.value[1].type == ir.ScalarType(INDEX)
    same_ir(f.get_result(), """
@pl.function
def pair(x: pl.Tensor[[16, 64], pl.FP32]) -> tuple[pl.Tensor[[16, 64], pl.FP32], pl.Scalar[pl.INDEX]]:
    return x, 7
""")


# -- statements -------------------------------------------------------------------------------------------------
def test_let_types_the_var_from_the_value_and_a_compatible_override():
    ib = IRBuilder()
    with ib.function("f") as f:
        x = f.param("x", T16)
        n = ib.let("n", 5)
        s = ib.let("s", 2.5)
        y = ib.let("y", tensor.adds(x, s), type=T16)
        ib.return_stmt(y)
    assert n.type == ir.ScalarType(INDEX) and s.type == ir.ScalarType(FP32)
    same_ir(f.get_result(), """
@pl.function
def f(x: pl.Tensor[[16, 64], pl.FP32]):
    n: pl.Scalar[pl.INDEX] = 5
    s: pl.Scalar[pl.FP32] = 2.5
    y: pl.Tensor[[16, 64], pl.FP32] = pl.add(x, s)
    return y
""")


def test_assign_rebinds_an_existing_var_as_the_parser_does():
    ib = IRBuilder()
    with ib.function("f") as f:
        x = f.param("x", T16)
        f.return_type(T16)
        y = ib.let("y", tensor.add(x, x))
        stmt = ib.assign(y, tensor.muls(y, 2.0))
        ib.return_stmt(y)
    assert isinstance(stmt, ir.AssignStmt) and stmt.var is y
    same_ir(f.get_result(), """
@pl.function
def f(x: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
    y = pl.add(x, x)
    y = pl.mul(y, 2.0)
    return y
""")


def test_make_tuple_is_not_emitted_and_normalizes_numbers():
    ib = IRBuilder()
    with ib.function("f") as f:
        tup = ib.make_tuple([1, 2.0])
    assert isinstance(tup, ir.MakeTuple) and [type(e) for e in tup.elements] == [ir.ConstInt, ir.ConstFloat]
    assert len(f.get_result().body) == 0


# -- for loops --------------------------------------------------------------------------------------------------
def test_a_loop_without_carries_with_start_and_step():
    ib = IRBuilder()
    with ib.function("f") as f:
        x = f.param("x", T16)
        out = f.param("out", T16, direction=ir.ParamDirection.Out)
        f.return_type(T16)
        i = index_var(ib, "i")
        with ib.for_loop(i, 2, 10, 3) as loop:
            ib.let("t", tensor.adds(x, 1.0))
        ib.return_stmt(out)
    assert loop.outputs() == [] and isinstance(loop.get_result(), ir.ForStmt)
    same_ir(f.get_result(), """
@pl.function
def f(x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
    for i in pl.range(2, 10, 3):
        t = pl.add(x, 1.0)
    return out
""")


def build_nested_carries() -> ir.Program:
    ib = IRBuilder()
    with ib.program("Nested") as prog:
        with ib.function("main") as f:
            x = f.param("x", T16)
            n = f.param("n", ir.ScalarType(INDEX))
            f.return_type(T16)
            f.return_type(T16)
            zero = ib.let("zero", tensor.muls(x, 0.0))
            with ib.for_loop(index_var(ib, "i"), 0, n, 1) as outer:
                a = outer.iter_arg("a", zero)
                b = outer.iter_arg("b", x)
                outer.return_var("a_out")
                outer.return_var("b_out")
                with ib.for_loop(index_var(ib, "j"), 1, 3, 1) as inner:
                    c = inner.iter_arg("c", a)
                    inner.return_var("c_out")
                    ib.emit(yield_(ib.let("c2", tensor.add(c, b))))
                b2 = ib.let("b2", tensor.muls(b, 0.5))
                ib.emit(yield_(inner.output(0), b2))
            ib.return_stmt(outer.outputs())
        prog.add_function(f.get_result())
    return prog.get_result()


NESTED = """
@pl.program
class Nested:
    @pl.function
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX]) -> tuple[pl.Tensor[[16, 64], pl.FP32],
                                                                                 pl.Tensor[[16, 64], pl.FP32]]:
        zero = pl.mul(x, 0.0)
        for i, (a, b) in pl.range(n, init_values=(zero, x)):
            for j, (c,) in pl.range(1, 3, init_values=(a,)):
                c2 = pl.add(c, b)
                c_out = pl.yield_(c2)
            b2 = pl.mul(b, 0.5)
            a_out, b_out = pl.yield_(c_out, b2)
        return a_out, b_out
"""


def test_nested_loops_with_several_carries():
    same_ir(build_nested_carries(), NESTED)


def test_nested_loops_run_like_their_parse():
    parsed = pl.parse(header(NESTED))
    built = build_nested_carries()
    same_results(parsed, built)


def test_a_parallel_loop_with_a_dynamic_bound_and_attrs():
    ib = IRBuilder()
    with ib.function("f") as f:
        x = f.param("x", T16)
        n = f.param("n", ir.ScalarType(INDEX))
        with ib.for_loop(index_var(ib, "i"), 0, n * 2, 1, kind=ir.ForKind.Parallel) as loop:
            ib.let("t", tensor.adds(x, 1.0))
    assert loop.get_result().kind is ir.ForKind.Parallel
    same_ir(f.get_result(), """
@pl.function
def f(x: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX]):
    for i in pl.parallel(n * 2):
        t = pl.add(x, 1.0)
""")


def test_break_and_continue_inside_a_loop_and_an_if():
    ib = IRBuilder()
    with ib.function("f") as f:
        with ib.for_loop(i := index_var(ib, "i"), 0, 4, 1):
            with ib.if_stmt(i > 2) as branch:
                ib.break_stmt()
                branch.else_()
                ib.continue_stmt()
    same_ir(f.get_result(), """
@pl.function
def f():
    for i in pl.range(4):
        if i > 2:
            break
        else:
            continue
""")


# -- while loops ------------------------------------------------------------------------------------------------
def build_while() -> ir.Program:
    ib = IRBuilder()
    with ib.program("W") as prog:
        with ib.function("main") as f:
            x = f.param("x", T16)
            f.return_type(T16)
            with ib.while_loop(ir.ConstBool(True, SPAN)) as loop:
                k = loop.iter_arg("k", 0)
                acc = loop.iter_arg("acc", x)
                loop.set_condition(k < 4)
                loop.return_var("k2")
                loop.return_var("acc2")
                z = ib.let("z", tensor.adds(acc, 1.0))
                ib.emit(yield_(k + 1, z))
            ib.return_stmt(loop.output(1))
        prog.add_function(f.get_result())
    return prog.get_result()


WHILE = """
@pl.program
class W:
    @pl.function
    def main(self, x: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
        for (k, acc) in pl.while_(init_values=(0, x)):
            pl.cond(k < 4)
            z = pl.add(acc, 1.0)
            k2, acc2 = pl.yield_(k + 1, z)
        return acc2
"""


def test_a_while_loop_whose_condition_reads_its_iter_args():
    built = build_while()
    same_ir(built, WHILE)
    loop = built.get_function("main").body[0]
    assert isinstance(loop, ir.WhileStmt) and loop.iter_args[0].type == ir.ScalarType(INDEX)


def test_a_while_loop_runs_like_its_parse():
    built = build_while()
    same_results(pl.parse(header(WHILE)), built)
    x = make_inputs(built.get_function("main"), seed=1)["x"]
    (result,) = run_program(built, {"x": x}).values()
    np.testing.assert_allclose(result, x + 4.0, rtol=1e-6)


def test_a_while_loop_with_one_carry_and_a_scalar_body():
    ib = IRBuilder()
    with ib.function("count") as f:
        n = f.param("n", ir.ScalarType(INDEX))
        f.return_type(ir.ScalarType(INDEX))
        with ib.while_loop(True) as loop:
            k = loop.iter_arg("k", 1)
            loop.set_condition(k < n)
            out = loop.return_var("k_out")
            ib.emit(yield_(k * 2))
        ib.return_stmt(out)
    same_ir(f.get_result(), """
@pl.function
def count(n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
    for (k,) in pl.while_(init_values=(1,)):
        pl.cond(k < n)
        k_out = pl.yield_(k * 2)
    return k_out
""")


# -- ifs --------------------------------------------------------------------------------------------------------
def test_an_if_without_else_or_results():
    ib = IRBuilder()
    with ib.function("f") as f:
        x = f.param("x", T16)
        n = f.param("n", ir.ScalarType(INDEX))
        with ib.if_stmt(n > 0) as branch:
            ib.let("t", tensor.exp(x))
            branch.else_()  # an else branch left empty: no else body
    assert branch.get_result().else_body is None and branch.outputs() == []
    same_ir(f.get_result(), """
@pl.function
def f(x: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX]):
    if n > 0:
        t = pl.exp(x)
""")


def build_if_in_loop() -> ir.Program:
    ib = IRBuilder()
    with ib.program("IfLoop") as prog:
        with ib.function("main") as f:
            x = f.param("x", T16)
            f.return_type(T16)
            f.return_type(ir.ScalarType(INDEX))
            i = index_var(ib, "i")
            with ib.for_loop(i, 0, 4, 1) as loop:
                acc = loop.iter_arg("acc", x)
                cnt = loop.iter_arg("cnt", 0)
                loop.return_var("acc_out")
                loop.return_var("cnt_out")
                with ib.if_stmt(i < 2) as branch:
                    branch.return_var("v", T16)
                    branch.return_var("c", ir.ScalarType(INDEX))
                    ib.emit(yield_(ib.let("d", tensor.muls(acc, 2.0)), cnt + 1))
                    branch.else_()
                    ib.emit(yield_(ib.let("e", tensor.adds(acc, 1.0)), cnt))
                v, c = branch.outputs()
                ib.emit(yield_(v, c))
            ib.return_stmt([loop.output(0), loop.output(1)])
        prog.add_function(f.get_result())
    return prog.get_result()


IF_IN_LOOP = """
@pl.program
class IfLoop:
    @pl.function
    def main(self, x: pl.Tensor[[16, 64], pl.FP32]) -> tuple[pl.Tensor[[16, 64], pl.FP32], pl.Scalar[pl.INDEX]]:
        for i, (acc, cnt) in pl.range(4, init_values=(x, 0)):
            if i < 2:
                d = pl.mul(acc, 2.0)
                v, c = pl.yield_(d, cnt + 1)
            else:
                e = pl.add(acc, 1.0)
                v, c = pl.yield_(e, cnt)
            acc_out, cnt_out = pl.yield_(v, c)
        return acc_out, cnt_out
"""


def test_an_if_with_results_inside_a_loop():
    same_ir(build_if_in_loop(), IF_IN_LOOP)


def test_an_if_with_results_runs_like_its_parse():
    built = build_if_in_loop()
    same_results(pl.parse(header(IF_IN_LOOP)), built)
    x = make_inputs(built.get_function("main"), seed=2)["x"]
    acc, cnt = run_program(built, {"x": x}).values()
    np.testing.assert_allclose(acc, x * 4 + 2, rtol=1e-5)
    assert int(cnt) == 2


# -- scopes -----------------------------------------------------------------------------------------------------
def build_scopes() -> ir.Program:
    ib = IRBuilder()
    with ib.program("Scopes") as prog:
        with ib.function("main") as f:
            a = f.param("a", T16)
            out = f.param("out", T16, direction=ir.ParamDirection.Out)
            f.return_type(T16)
            with ib.scope(ir.ScopeKind.InCore, name_hint="k", split=ir.SplitMode.UP_DOWN):
                ib.assign(out, tensor.assemble(out, tensor.exp(a), [0, 0]))
            with ib.scope(ir.ScopeKind.InCore):
                with ib.scope(ir.ScopeKind.SplitAiv, split=ir.SplitMode.UP_DOWN):
                    ib.let("aiv_id", tile.get_subblock_idx())
                    y = ib.let("y", tensor.adds(a, 1.0))
                    ib.assign(out, tensor.assemble(out, y, [0, 0]))
            ib.return_stmt(out)
        prog.add_function(f.get_result())
    return prog.get_result()


SCOPES = """
@pl.program
class Scopes:
    @pl.function
    def main(self, a: pl.Tensor[[16, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="k", optimizations=[pl.split(pl.SplitMode.UP_DOWN)]):
            out = pl.assemble(out, pl.exp(a), [0, 0])
        with pl.at(level=pl.Level.CORE_GROUP):
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                y = pl.add(a, 1.0)
                out = pl.assemble(out, y, [0, 0])
        return out
"""


def test_incore_and_split_aiv_scopes():
    built = build_scopes()
    same_ir(built, SCOPES)
    first, second = built.get_function("main").body.stmts[:2]
    assert (first.scope_kind, first.name_hint, first.split) == (ir.ScopeKind.InCore, "k", ir.SplitMode.UP_DOWN)
    assert isinstance(second.body, ir.SplitAivScopeStmt) and second.body.count == 2


def test_scopes_run_like_their_parse():
    same_results(pl.parse(header(SCOPES)), build_scopes())


def test_hierarchy_cluster_and_spmd_scopes():
    ib = IRBuilder()
    with ib.function("f") as f:
        x = f.param("x", T16)
        with ib.scope(ir.ScopeKind.Hierarchy, level=ir.Level.HOST):
            ib.let("z", tensor.adds(x, 1.0))
        with ib.scope(ir.ScopeKind.Cluster, name_hint="c") as cluster:
            ib.let("w", tensor.adds(x, 2.0))
        with ib.scope(ir.ScopeKind.Spmd, core_num=4, attrs={"tag": 1}) as spmd:
            ib.let("v", tensor.adds(x, 3.0))
    body = f.get_result().body.stmts
    assert isinstance(body[0], ir.HierarchyScopeStmt) and body[0].level is ir.Level.HOST and body[0].role is None
    assert cluster.get_result() is body[1] and body[1].name_hint == "c"
    assert spmd.get_result().core_num.value == 4 and spmd.get_result().attrs == {"tag": 1}
    ib2 = IRBuilder()
    with ib2.function("f") as g:
        x = g.param("x", T16)
        with ib2.scope(ir.ScopeKind.Hierarchy, level=ir.Level.HOST):
            ib2.let("z", tensor.adds(x, 1.0))
    same_ir(g.get_result(), """
@pl.function
def f(x: pl.Tensor[[16, 64], pl.FP32]):
    with pl.at(level=pl.Level.HOST):
        z = pl.add(x, 1.0)
""")


# -- programs ---------------------------------------------------------------------------------------------------
def build_kernel_program(add_main_first: bool) -> ir.Program:
    """PyPTO's pass-test idiom: an InCore kernel with an Out parameter called from main."""
    ib = IRBuilder()
    with ib.program("main") as prog:
        gv = prog.declare_function("main_incore_0")
        prog.declare_function("main")
        with ib.function("main_incore_0", type=ir.FunctionType.InCore) as k:
            x = k.param("x", T16)
            out = k.param("out_0", T16, direction=ir.ParamDirection.Out)
            k.return_type(T16)
            t = ib.let("x_tile", tile.load(x, [0, 0], [16, 64]))
            ib.return_stmt(ib.let("stored", tile.store(tile.exp(t), [0, 0], out)))
        with ib.function("main", type=ir.FunctionType.Orchestration) as m:
            a = m.param("a", T16)
            o = m.param("o", T16, direction=ir.ParamDirection.Out)
            m.return_type(T16)
            y = ib.let("y", ir.Call(gv, [a, o], SPAN), type=T16)
            ib.return_stmt(y)
        for f in ((m, k) if add_main_first else (k, m)):
            prog.add_function(f.get_result())
    return prog.get_result()


KERNEL_PROGRAM = """
@pl.program
class main:
    @pl.function(type=pl.FunctionType.InCore)
    def main_incore_0(self, x: pl.Tensor[[16, 64], pl.FP32],
                      out_0: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        x_tile = pl.load(x, [0, 0], [16, 64])
        stored = pl.store(pl.exp(x_tile), [0, 0], out_0)
        return stored
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 64], pl.FP32],
             o: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        y = self.main_incore_0(a, o)
        return y
"""


@pytest.mark.parametrize("add_main_first", [False, True])
def test_a_kernel_program_in_either_add_order(add_main_first):
    built = build_kernel_program(add_main_first)
    assert [gv.name for gv in built.functions] == ["main", "main_incore_0"]
    same_ir(built, KERNEL_PROGRAM)


def test_a_kernel_program_runs_like_its_parse():
    built = build_kernel_program(False)
    same_results(pl.parse(header(KERNEL_PROGRAM)), built)
    inputs = make_inputs(built.get_function("main"), seed=4)
    outputs = run_program(built, inputs)
    for value in outputs.values():
        np.testing.assert_allclose(value, np.exp(inputs["a"]), rtol=1e-5)


def test_let_types_a_call_from_the_added_callee_and_maps_its_scalar_dims():
    n_dim = ir.Var("N", ir.ScalarType(INDEX))
    ib = IRBuilder()
    with ib.program("Dyn") as prog:
        gv = prog.declare_function("k")
        with ib.function("k") as k:
            n = k.param("n", ir.ScalarType(INDEX))
            x = k.param("x", ir.TensorType([n_dim, 64], FP32))
            k.return_type(ir.TensorType([n, 64], FP32))
            ib.return_stmt(x)
        prog.add_function(k.get_result())
        with ib.function("main") as m:
            a = m.param("a", T16)
            r = ib.let("r", ir.Call(gv, [16, a], SPAN))
            untyped = ib.let("u", ir.Call(ir.GlobalVar("elsewhere"), [a], SPAN))
    assert r.type == T16  # the callee's `n` is the caller's 16, as the parser types `self.k(16, a)`
    assert isinstance(untyped.type, ir.UnknownType)
    assert prog.get_global_var("k") is gv and prog.declare_function("k") is gv


# -- spans ------------------------------------------------------------------------------------------------------
def test_spans_default_to_the_callers_line_with_an_unknown_column():
    ib = IRBuilder()
    line = sys._getframe().f_lineno + 1
    with ib.function("f") as f:
        x = f.param("x", T16)
        y = ib.let("y", tensor.add(x, x))
        given = ir.Span("given.py", 7, 3)
        z = ib.let("z", tensor.add(y, y), span=given)
    assert (f.span.filename, f.span.begin_line, f.span.begin_column) == (__file__, line, -1)
    assert (x.span.begin_line, y.span.begin_line) == (line + 1, line + 2)
    assert z.span == given and f.get_result().body.stmts[1].span == given


# -- errors (PyPTO's wording) -----------------------------------------------------------------------------------
def test_nested_function_and_program_are_refused():
    ib = IRBuilder()
    with ib.function("f"):
        with pytest.raises(RuntimeError, match=r"Cannot begin function 'g': already inside function 'f' at .*:\d+"):
            with ib.function("g"):
                pass
    with ib.program("p"):
        with pytest.raises(RuntimeError, match="Cannot begin program 'q': already inside program 'p'"):
            with ib.program("q"):
                pass


def test_loop_counts_must_match():
    ib = IRBuilder()
    with ib.function("f") as f:
        x = f.param("x", T16)
        with pytest.raises(RuntimeError, match="^For loop has 1 iteration arguments but 0 return variables. "
                                               "They must match.$"):
            with ib.for_loop(index_var(ib, "i"), 0, 4, 1) as loop:
                loop.iter_arg("a", x)
        with pytest.raises(RuntimeError, match="^While loop has 0 iteration arguments but 1 return variables"):
            with ib.while_loop(True) as w:
                w.return_var("r", T16)
        assert not ib.in_loop()


def test_iter_arg_and_return_var_type_errors():
    ib = IRBuilder()
    with ib.function("f") as f:
        x = f.param("x", T16)
        with ib.for_loop(index_var(ib, "i"), 0, 4, 1) as loop:
            with pytest.raises(ValueError, match="Type mismatch in iter_arg 'a'"):
                loop.iter_arg("a", x, type=ir.ScalarType(INDEX))
            with pytest.raises(ValueError, match="return_var 'r' has no iter_arg at position 0"):
                loop.return_var("r")
            loop.iter_arg("a", x)
            with pytest.raises(ValueError, match="Type mismatch in return_var 'r'"):
                loop.return_var("r", ir.TensorType([8], FP32))
            loop.return_var("r", T16)
            ib.emit(yield_(x))
        with pytest.raises(IndexError, match="output index 1 out of range"):
            loop.output(1)


def test_outputs_and_results_before_completion_are_runtime_errors():
    ib = IRBuilder()
    with ib.function("f") as f:
        with pytest.raises(RuntimeError, match="is not complete"):
            f.get_result()
        with ib.for_loop(index_var(ib, "i"), 0, 4, 1) as loop:
            with pytest.raises(RuntimeError, match="is not complete"):
                loop.outputs()
        with ib.if_stmt(True) as branch:
            with pytest.raises(RuntimeError, match="is not complete"):
                branch.output()
    with ib.program("p") as prog:
        with pytest.raises(RuntimeError, match="is not complete"):
            prog.get_result()


def test_param_must_be_direct_in_the_function():
    ib = IRBuilder()
    with ib.function("f") as f:
        with ib.for_loop(index_var(ib, "i"), 0, 4, 1):
            with pytest.raises(ValueError, match="FuncArg must be called directly in function context, not nested"):
                f.param("x", T16)


def test_let_override_of_another_kind_is_a_type_error():
    ib = IRBuilder()
    with ib.function("f") as f:
        x = f.param("x", T16)
        with pytest.raises(TypeError, match="Type override for 'y' is incompatible: inferred TensorType but "
                                            "override is ScalarType"):
            ib.let("y", tensor.add(x, x), type=ir.ScalarType(FP32))


def test_let_of_a_call_to_a_multi_result_function_needs_a_type():
    ib = IRBuilder()
    with ib.program("p") as prog:
        gv = prog.declare_function("two")
        with ib.function("two") as f:
            x = f.param("x", T16)
            f.return_type(T16)
            f.return_type(T16)
            ib.return_stmt([x, x])
        prog.add_function(f.get_result())
        with ib.function("main") as m:
            a = m.param("a", T16)
            with pytest.raises(ValueError, match="function 'two' returns 2 values"):
                ib.let("r", ir.Call(gv, [a], SPAN))
            pair = ir.TupleType([T16, T16])
            assert ib.let("r", ir.Call(gv, [a], SPAN), type=pair).type == pair


def test_emit_outside_any_context_and_into_a_program():
    ib = IRBuilder()
    with pytest.raises(RuntimeError, match="^Cannot emit statement: not inside any context$"):
        ib.emit(ir.BreakStmt(SPAN))
    with ib.program("p"):
        with pytest.raises(RuntimeError, match="Cannot emit statement: the innermost context is program 'p'"):
            ib.return_stmt()
        with pytest.raises(RuntimeError, match="not inside a function"):
            with ib.for_loop(index_var(ib, "i"), 0, 4, 1):
                pass


def test_a_second_else_and_a_duplicate_attribute():
    ib = IRBuilder()
    with ib.function("f", attrs={"slot_num": 2}):
        with ib.if_stmt(True) as branch:
            branch.else_()
            with pytest.raises(ValueError, match="Cannot begin else branch: already in else branch"):
                branch.else_()
        with pytest.raises(ValueError, match="Duplicate function attribute 'slot_num' in function 'f'. "):
            ib.add_function_attrs({"slot_num": 4})


def test_undeclared_global_var_and_scope_arguments():
    ib = IRBuilder()
    with ib.program("p") as prog:
        with pytest.raises(RuntimeError, match="Function 'g' not declared in current program"):
            prog.get_global_var("g")
        with ib.function("f"):
            with pytest.raises(ValueError, match="Hierarchy scope needs level="):
                ib.scope(ir.ScopeKind.Hierarchy)
            with pytest.raises(ValueError, match="SplitAiv scope needs split="):
                ib.scope(ir.ScopeKind.SplitAiv)
            with pytest.raises(ValueError, match="InCore scope does not take level="):
                ib.scope(ir.ScopeKind.InCore, level=ir.Level.HOST)
            with pytest.raises(ValueError, match="no Runtime scope node"):
                ib.scope(ir.ScopeKind.Runtime, manual=True)


def test_a_block_left_by_an_exception_builds_nothing_and_the_builder_recovers():
    ib = IRBuilder()
    with ib.function("f") as f:
        with pytest.raises(KeyError):
            with ib.for_loop(index_var(ib, "i"), 0, 4, 1) as loop:
                loop.iter_arg("a", 0)
                raise KeyError("boom")  # not masked by the loop's own count check
        ib.return_stmt()
    assert isinstance(f.get_result().body, ir.ReturnStmt)


def test_context_queries():
    ib = IRBuilder()
    assert not (ib.in_function() or ib.in_loop() or ib.in_if())
    with ib.function("f"):
        with ib.for_loop(index_var(ib, "i"), 0, 4, 1):
            with ib.if_stmt(True):
                with ib.scope(ir.ScopeKind.InCore):
                    assert ib.in_function() and ib.in_loop() and ib.in_if()
        assert ib.in_function() and not ib.in_loop() and not ib.in_if()


def test_type_helpers_normalize_ints():
    ib = IRBuilder()
    tt = ib.tensor_type([16, 64], FP32, tensor_view=ib.tensor_view([64, 1], ir.TensorLayout.ND))
    assert tt == ir.TensorType([16, 64], FP32, None, ir.TensorView([64, 1], ir.TensorLayout.ND))
    view = ib.tile_view([8, 64], [64, 1], 0)
    assert all(isinstance(d, ir.ConstInt) for d in (*view.valid_shape, *view.stride, view.start_offset))
    tl = ib.tile_type([16, 64], FP32, tile_view=view, memory_space=ir.MemorySpace.Vec)
    assert tl.memory_space is ir.MemorySpace.Vec and tl.valid_shape[0].value == 8


def test_inline_stmt_says_pypto_has_no_such_statement():
    ib = IRBuilder()
    with ib.function("f"):
        with pytest.raises(ValueError, match="no inline-source statement"):
            ib.inline_stmt("x = 1")


# -- the guide's example ----------------------------------------------------------------------------------------
def test_the_guides_example_builds_what_the_guide_prints():
    import re
    from pathlib import Path

    guide = (Path(__file__).resolve().parent.parent / "docs" / "ir_builder.md").read_text(encoding="utf-8")
    code, printed = re.search(r"```python\n(.*?)```.*?```\n(.*?)```", guide, re.DOTALL).groups()
    scope: dict[str, object] = {}
    exec(compile(code, "docs/ir_builder.md", "exec"), scope)  # the guide's own code, as a reader runs it
    assert ir.python_print(scope["program"], format=False) == printed.rstrip("\n") == PAGE_EXAMPLE


def test_a_context_that_failed_to_build_refuses_further_use():
    ib = IRBuilder()
    with ib.function("f") as f:
        x = f.param("x", T16)
        with pytest.raises(RuntimeError, match="For loop has 1 iteration arguments"):
            with ib.for_loop(index_var(ib, "i"), 0, 4, 1) as loop:
                loop.iter_arg("a", x)
        with pytest.raises(RuntimeError, match=r"iter_arg\(\) of the for loop at .* after its with block closed"):
            loop.iter_arg("b", x)
        with pytest.raises(RuntimeError, match="is not complete"):
            loop.get_result()
        with pytest.raises(RuntimeError, match="was already entered"):
            with loop:
                pass
    assert len(f.get_result().body) == 0  # the failed loop was not emitted

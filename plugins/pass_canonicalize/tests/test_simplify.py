"""Simplify: expression rules, constant propagation, if / loop folds, cleanup (structure and execution)."""

from __future__ import annotations

import pytest

import pypto.language as pl
from pypto import ir, passes
from pypto_core.ir import expr as E
from pypto_core.ir.dtypes import DataType
from pypto_core.testing import same_results
from pypto_plugins.pass_canonicalize.int_bounds import Bounds, BoundsOf
from pypto_plugins.pass_canonicalize.simplify_exprs import ExprSimplifier
from pypto_plugins.pass_canonicalize.tests.helpers import body_text, program

TILE = 64


def simplified(before: ir.Program, seeds: tuple[int, ...] = (0, 1)) -> ir.Program:
    after = passes.simplify()(before)
    for seed in seeds:
        same_results(before, after, seed=seed)
    return after


# -- expressions alone ----------------------------------------------------------------------------------
N = E.Var("n", ir.ScalarType(DataType.INDEX))
M = E.Var("m", ir.ScalarType(DataType.INT64))
IDX = E.Var("i", ir.ScalarType(DataType.INDEX))
F = E.Var("f", ir.ScalarType(DataType.FP32))


def simplify_expr(e: E.Expr, known: dict[E.Var, Bounds] | None = None) -> str:
    known = known or {}
    s = ExprSimplifier(lambda v: None, BoundsOf(lambda v: known.get(v)))
    from pypto_core.language.printer import python_print

    return python_print(s(e))


@pytest.mark.parametrize(("build", "printed"), [
    (lambda: 3 + IDX > 2, "-1 < i"),                              # constants right, > to <, moved across
    (lambda: E.Not(N < 4, DataType.BOOL), "4 <= n"),
    (lambda: (N + 2) + 3 == 9, "n == 4"),
    (lambda: IDX < 16, "i < 16"),                                   # comparisons are not decided from bounds
    (lambda: N < 0, "n < 0"),
    (lambda: 7 * N, "n * 7"),
    (lambda: N * 2 + N * 3, "n * 5"),
    (lambda: N + N, "n * 2"),
    (lambda: (N + M) - M, "n"),
    (lambda: N - (M + 3), "n - m + -3"),
    (lambda: N - (M - IDX), "n + i - m"),
    (lambda: (N + 1) * 4, "n * 4 + 4"),
    (lambda: pl.min(N + IDX, N + 7), "n + pl.min(i, 7)"),
    (lambda: pl.max(N, N) - (M - 1), "n - m + 1"),
    (lambda: (N * 8) // 4, "n * 2"),
    (lambda: (N * 8) % 4, "0"),
    (lambda: (N // 2) // 4, "n // 8"),
    (lambda: N // 1 + N % 1 + N * 1 + N * 0 + N - 0, "n * 3"),
    (lambda: N - N, "0"),
    (lambda: E.And(N <= N, E.Ne(M, M, DataType.BOOL), DataType.BOOL), "False"),
    (lambda: E.Not(E.And(N < 3, M == 2, DataType.BOOL), DataType.BOOL), "3 <= n or m != 2"),
    (lambda: E.Not(E.Not(N == 1, DataType.BOOL), DataType.BOOL), "n == 1"),
    (lambda: F + 2.0, "f + 2.0"),                                # floats are left as they are
    (lambda: F * 1.0, "f * 1.0"),
    (lambda: pl.cast(pl.const(3, pl.INDEX) + pl.const(4, pl.INDEX), pl.FP32), "pl.cast(pl.const(7, pl.INDEX), pl.FP32)"),
])
def test_expression_rules(build, printed):
    assert simplify_expr(build()) == printed


def test_range_aware_rules_use_the_bounds_of_variables():
    in_range = {IDX: Bounds(0, 7)}
    assert simplify_expr(IDX // 8 + IDX % 8, in_range) == "i"
    assert simplify_expr(pl.min(IDX, N + 8), in_range) == "i"
    assert simplify_expr(pl.max(IDX, 9), in_range) == "9"
    assert simplify_expr(IDX // 8, {IDX: Bounds(0, 9)}) == "i // 8"


def test_folding_that_would_leave_int64_is_skipped_and_a_zero_divisor_is_an_error():
    big = pl.const(2**62, pl.INT64)
    assert simplify_expr(big * 4).startswith("pl.const(4611686018427387904, pl.INT64) * ")
    with pytest.raises(ValueError, match="Floor division by zero"):
        simplify_expr(N // 0)
    with pytest.raises(ValueError, match="Floor modulo by zero"):
        simplify_expr(N % 0)


# -- statements ---------------------------------------------------------------------------------------
def test_api_names_and_properties():
    p = passes.simplify()
    assert p.get_name() == "Simplify"
    assert p.get_required_properties().empty()
    assert p.get_produced_properties().empty()
    assert p.get_invalidated_properties().empty()


def test_standalone_on_non_ssa_input_page_e3():
    after = simplified(program('''
@pl.function
def main(out: pl.Out[pl.Tensor[[8], pl.INDEX]], n: pl.Scalar[pl.INDEX], m: pl.Scalar[pl.INT64]) -> pl.Tensor[[8], pl.INDEX]:
    a: pl.Scalar[pl.INDEX] = pl.const(3, pl.INDEX) + pl.const(4, pl.INDEX)
    pl.tensor.write(out, [0], a * n + 0)
    for i in pl.range(8):
        pl.tensor.write(out, [i % 8], i // 8 + n * 0)
    if n < 0:
        pl.tensor.write(out, [1], n)
    if m < 0:
        pl.tensor.write(out, [2], n)
    w: pl.Scalar[pl.INDEX] = n * 2 + n * 3
    pl.tensor.write(out, [3], pl.max(w, w) - (n - 1))
    if w >= n:
        pl.tensor.write(out, [4], 1)
    return out
'''))
    assert body_text(after, "main") == [
        "pl.tensor.write(out, [0], n * 7)",
        "for i in pl.range(8):",
        "    pl.tensor.write(out, [i], 0)",
        "if m < 0:",
        "    pl.tensor.write(out, [2], n)",
        "w: pl.Scalar[pl.INDEX] = n * 5",
        "pl.tensor.write(out, [3], w - n + 1)",
        "if n <= w:",
        "    pl.tensor.write(out, [4], 1)",
        "return out",
    ]


def test_module_constants_fold_into_shapes_offsets_and_loops_page_e1():
    @pl.program
    class P:
        @pl.function
        def main(self, a: pl.Tensor[[128], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[128], pl.FP32]:
            CH: pl.Scalar[pl.INDEX] = TILE
            half: pl.Scalar[pl.INDEX] = CH // 2
            t: pl.Tensor[[CH], pl.FP32] = pl.slice(a, [CH], [half + 0])
            for i in pl.range(0, 128, CH):
                if i >= 128:
                    a = pl.add(a, 1.0)
                else:
                    a = pl.assemble(a, t, [i * 1 + 0])
            k = n + 3 - n
            b = pl.add(a, pl.cast(k, pl.FP32))
            return b

    after = simplified(passes.convert_to_ssa()(P))
    assert body_text(after, "main") == [
        "t__ssa_v0: pl.Tensor[[64], pl.FP32] = pl.tensor.slice(a__ssa_v0, [64], [32])",
        "for i__idx_v0, (a__iter_v1,) in pl.range(0, 128, 64, init_values=(a__ssa_v0,)):",
        "    a__ssa_v3: pl.Tensor[[128], pl.FP32] = pl.tensor.assemble(a__iter_v1, t__ssa_v0, [i__idx_v0])",
        "    a__rv_v1: pl.Tensor[[128], pl.FP32] = pl.yield_(a__ssa_v3)",
        "b__ssa_v0: pl.Tensor[[128], pl.FP32] = pl.tensor.adds(a__rv_v1, pl.cast(pl.const(3, pl.INDEX), pl.FP32))",
        "return b__ssa_v0",
    ]


def test_one_and_zero_trip_loops_and_range_proofs_page_e2():
    @pl.program
    class P:
        @pl.function
        def main(self, a: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INDEX],
                 f: pl.Scalar[pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
            for k in pl.range(0, 16, 16):
                if k == 0:
                    a = pl.add(a, 1.0)
                else:
                    a = pl.mul(a, 2.0)
            for j in pl.range(n):
                c: pl.Scalar[pl.INDEX] = 4
                m = pl.min(j + c, j + 7)
                if j > n:
                    a = pl.add(a, 3.0)
                if m >= c:
                    a = pl.tensor.write(a, [m], f + 1.0 * 2.0)
            for z in pl.range(5, 5):
                a = pl.mul(a, 9.0)
            return a

    after = simplified(passes.convert_to_ssa()(P))
    assert body_text(after, "main") == [
        "a__ssa_v2: pl.Tensor[[64], pl.FP32] = pl.tensor.adds(a__ssa_v0, 1.0)",
        "for j__idx_v0, (a__iter_v5,) in pl.range(n__ssa_v0, init_values=(a__ssa_v2,)):",
        "    c__ssa_v0: pl.Scalar[pl.INDEX] = 4",
        "    m__ssa_v0: pl.Scalar[pl.INDEX] = j__idx_v0 + c__ssa_v0",
        "    if n__ssa_v0 < j__idx_v0:",
        "        a__ssa_v6: pl.Tensor[[64], pl.FP32] = pl.tensor.adds(a__iter_v5, 3.0)",
        "        a__phi_v7: pl.Tensor[[64], pl.FP32] = pl.yield_(a__ssa_v6)",
        "    else:",
        "        a__phi_v7: pl.Tensor[[64], pl.FP32] = pl.yield_(a__iter_v5)",
        "    a__ssa_v8: pl.Tensor[[64], pl.FP32] = pl.tensor.write(a__phi_v7, [m__ssa_v0], f__ssa_v0 + 2.0)",
        "    a__rv_v5: pl.Tensor[[64], pl.FP32] = pl.yield_(a__ssa_v8)",
        "a__rv_v10: pl.Tensor[[64], pl.FP32] = a__rv_v5",
        "return a__rv_v10",
    ]


def test_a_top_level_bool_constant_is_propagated_not_an_error():
    """PyPTO raises TypeError on `x: pl.Scalar[pl.BOOL] = False` (docs/passes/simplify.md): it is a constant too."""
    after = simplified(program('''
@pl.function(type=pl.FunctionType.InCore)
def k(x: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64], pl.FP32]:
    done: pl.Scalar[pl.BOOL] = False
    for (d, y) in pl.while_(init_values=(done, x)):
        pl.cond(not d)
        y2 = pl.add(y, 1.0)
        d2, y3 = pl.yield_(True, y2)
    if done:
        x = pl.mul(x, 3.0)
    return y3
'''))
    assert body_text(after, "k") == [
        "for (d, y) in pl.while_(init_values=(False, x)):",
        "    pl.cond(not d)",
        "    y2: pl.Tensor[[64], pl.FP32] = pl.tensor.adds(y, 1.0)",
        "    d2, y3 = pl.yield_(True, y2)",
        "return y3",
    ]


def test_branch_conditions_are_known_inside_their_branches_and_unused_if_results_go():
    after = simplified(program('''
@pl.function
def main(out: pl.Out[pl.Tensor[[8], pl.INDEX]], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[8], pl.INDEX]:
    if n < 4:
        if n < 6:
            pl.tensor.write(out, [0], n)
        else:
            pl.tensor.write(out, [1], n)
    else:
        if n == 2:
            pl.tensor.write(out, [2], n)
        q: pl.Scalar[pl.INDEX] = n + 1
        pl.tensor.write(out, [3], q - 1)
    if n > 3:
        u = pl.yield_(n * 1)
    else:
        u = pl.yield_(n + 0)
    return out
'''), seeds=(0, 1, 2, 3, 4, 5))
    assert body_text(after, "main") == [
        "if n < 4:",
        "    pl.tensor.write(out, [0], n)",
        "else:",
        "    q: pl.Scalar[pl.INDEX] = n + 1",
        "    pl.tensor.write(out, [3], q - 1)",
        "if 3 < n:",
        "    pass",
        "else:",
        "    pass",
        "return out",
    ]


def test_an_unchanged_program_is_returned_as_it_is():
    before = program('''
@pl.function
def main(x: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64], pl.FP32]:
    for i in pl.range(n):
        x = pl.add(x, 1.0)
    return x
''')
    assert passes.simplify()(before) is before


def test_a_view_that_changes_nothing_is_its_operand():
    after = simplified(program('''
@pl.function
def main(x: pl.Tensor[[16, 8], pl.FP32]) -> pl.Tensor[[16, 8], pl.FP32]:
    v = pl.tensor.view(x)
    y = pl.add(v, 1.0)
    return y
'''))
    assert body_text(after, "main")[0] == "v: pl.Tensor[[16, 8], pl.FP32] = x"


def test_the_pipeline_after_ctrl_flow_transform_and_ssa_runs_with_the_break_flag():
    before = program('''
@pl.function(type=pl.FunctionType.InCore)
def k(x: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64], pl.FP32]:
    for i in pl.range(8):
        if i > n:
            break
        x = pl.add(x, 1.0)
    return x
''')
    ssa = passes.convert_to_ssa()(passes.ctrl_flow_transform()(before))
    after = simplified(ssa, seeds=(0, 1, 2, 3))
    same_results(before, after)
    assert body_text(after, "k")[0].startswith("for (break__iter_v1, i__iter_v1, x__iter_v1) in pl.while_(init_values=(False, 0, x__ssa_v0)")

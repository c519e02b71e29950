"""ConvertToSSA: slot order, escaping variables, `pl.unroll(init_values=...)` (docs/passes/convert_to_ssa.md).

The acceptance cases are in tests/acceptance/transforms/test_convert_to_ssa.py; these are the edges:
DSL input, nested promotions, break/continue, idempotence, and what UseAfterDef accepts.
"""

from __future__ import annotations

import pytest

import pypto
import pypto.language as pl
from pypto import ir, passes
from pypto.ir.op import tile_ops
from pypto_core.passes.verifiers.use_after_def import verify_use_after_def

HEADER = "import pypto.language as pl\n\n"
F32 = ir.TensorType([64, 64], ir.DataType.FP32)
INDEX = ir.ScalarType(ir.DataType.INDEX)
TILE = ir.TileType([16, 64], ir.DataType.FP32, memory_space=ir.MemorySpace.Vec)


def c(v: int) -> ir.ConstInt:
    return ir.ConstInt(v, ir.DataType.INDEX)


def ssa(src: str) -> ir.Program:
    program = pl.parse(HEADER + src)
    if isinstance(program, ir.Function):
        program = ir.Program([program], "P")
    return passes.convert_to_ssa()(program)


def kernel(params: list, body: list) -> ir.Program:
    func = ir.Function("k", params, [F32], ir.SeqStmts(body), type=ir.FunctionType.InCore)
    return ir.Program([func], "P")


def use_after_def(program: object, strict: bool = False) -> list[str]:
    return [d.message.split(" is ")[0] for d in verify_use_after_def(program, strict=strict)]


# -- slot order ------------------------------------------------------------------------------------------
def test_synthesised_carries_of_a_while_loop_are_in_name_order():
    after = ssa('''
@pl.function
def f(x: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64], pl.FP32]:
    k = 0
    while k < n:
        x = pl.add(x, 1.0)
        k = k + 1
    return x
''')
    assert "for (k__iter_v1, x__iter_v1) in pl.while_(init_values=(k__ssa_v0, x__ssa_v0)):" in ir.python_print(after)


def test_order_is_stable_under_a_second_conversion():
    after = ssa('''
@pl.function
def f(n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
    y = 0
    b = 0
    for i in pl.range(n):
        y = y + i
        if y > 3:
            y = y - 1
            b = b + 1
    r = y + b
    return r
''')
    text = ir.python_print(after)
    assert "(b__iter_v1, y__iter_v1) in pl.range(n__ssa_v0, init_values=(b__ssa_v0, y__ssa_v0))" in text
    assert "b__phi_v3, y__phi_v4 = pl.yield_(b__ssa_v2, y__ssa_v3)" in text
    ir.assert_structural_equal(after, passes.convert_to_ssa()(after))


# -- escaping variables ----------------------------------------------------------------------------------
def test_a_dsl_store_result_used_after_the_loop_is_carried_from_its_target():
    # A name assigned in a DSL loop body is visible after the loop (docs/dsl.md, loops and carries); a stored
    # result escaping its loop is promoted too.
    after = ssa('''
@pl.function(type=pl.FunctionType.InCore)
def k(x: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
    for i in pl.range(4):
        t = pl.load(x, [i * 16, 0], [16, 64])
        res = pl.store(t, [i * 16, 0], out)
    return res
''')
    text = ir.python_print(after)
    assert "for i__idx_v0, (res__iter_v0,) in pl.range(4, init_values=(out__ssa_v0,)):" in text
    assert text.endswith("return res__rv_v1")  # an escaping carry: iter_arg v0, return var v1 (PyPTO's names)


def test_a_dsl_value_sharing_an_in_parameters_type_object_starts_from_it():
    # `pl.add(x, 1.0)` is typed with `x`'s type object; `out`'s annotation is another object: no Out parameter
    # qualifies, the visible value created first with that type object does (PyPTO's FindInitValue, rule 2).
    after = ssa('''
@pl.function
def f(x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
    for i in pl.range(4):
        t = pl.add(x, 1.0)
    return t
''')
    assert "for i__idx_v0, (t__iter_v0,) in pl.range(4, init_values=(x__ssa_v0,)):" in ir.python_print(after)


def test_a_dsl_value_with_nothing_to_start_from_is_reported_on_the_program_as_written():
    with pytest.raises(pypto.Error, match=r"variable 't' is assigned only inside the loop at .* and used after it "
                                          r"in function 'f', and nothing before it can stand for it"):
        ssa('''
@pl.function
def f(x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[8, 8], pl.FP32]:
    for i in pl.range(4):
        t = pl.reshape(x, [8, 8])
    return t
''')


def test_a_value_defined_in_both_branches_only_inside_a_nested_loop_is_promoted_there():
    x, out, n = ir.Var("x", F32), ir.Var("out", F32), ir.Var("n", INDEX)
    i, t, res = ir.Var("i", INDEX), ir.Var("t", TILE), ir.Var("res", F32)
    stored = ir.SeqStmts([ir.AssignStmt(t, tile_ops.load(x, [i * 16, 0], [16, 64])),
                          ir.AssignStmt(res, tile_ops.store(t, [i * 16, 0], out))])
    then = ir.ForStmt(i, 0, 4, 1, [], stored, [])
    els = ir.AssignStmt(res, tile_ops.store(tile_ops.load(x, [0, 0], [16, 64]), [0, 0], out))
    before = kernel([x, (out, ir.ParamDirection.Out), n],
                    [ir.IfStmt(ir.Gt(n, c(0), ir.DataType.BOOL), then, els, []), ir.ReturnStmt([res])])
    after = passes.convert_to_ssa()(before)
    text = ir.python_print(after)
    assert "for i__idx_v0, (res__iter_v0,) in pl.range(4, init_values=(out__ssa_v0,)):" in text
    assert "res__phi_v4: pl.Tensor[[64, 64], pl.FP32] = pl.yield_(res__rv_v1)" in text
    assert verify_use_after_def(after, strict=True) == []


def test_promotion_is_idempotent():
    x, out = ir.Var("x", F32), ir.Var("out", F32)
    i, t, res = ir.Var("i", INDEX), ir.Var("t", TILE), ir.Var("res", F32)
    body = ir.SeqStmts([ir.AssignStmt(t, tile_ops.load(x, [i * 16, 0], [16, 64])),
                        ir.AssignStmt(res, tile_ops.store(t, [i * 16, 0], out))])
    once = passes.convert_to_ssa()(kernel([x, (out, ir.ParamDirection.Out)],
                                          [ir.ForStmt(i, 0, 4, 1, [], body, []), ir.ReturnStmt([res])]))
    ir.assert_structural_equal(once, passes.convert_to_ssa()(once))


def test_a_promoted_value_in_a_loop_with_break_is_rejected_like_a_rebound_one():
    x, out = ir.Var("x", F32), ir.Var("out", F32)
    i, t, res = ir.Var("i", INDEX), ir.Var("t", TILE), ir.Var("res", F32)
    body = ir.SeqStmts([ir.AssignStmt(t, tile_ops.load(x, [i * 16, 0], [16, 64])),
                        ir.AssignStmt(res, tile_ops.store(t, [i * 16, 0], out)),
                        ir.IfStmt(ir.Gt(i, c(2), ir.DataType.BOOL), ir.BreakStmt(), None, [])])
    before = kernel([x, (out, ir.ParamDirection.Out)], [ir.ForStmt(i, 0, 4, 1, [], body, []), ir.ReturnStmt([res])])
    with pytest.raises(ValueError, match=r"this loop rebinds 'res' and also contains break/continue"):
        passes.convert_to_ssa()(before)


def test_a_value_whose_type_nothing_visible_shares_starts_from_a_placeholder():
    # The value is a write into `out`, but its type (32x64) is another object than `out`'s: no candidate.
    # PyPTO's pass does not reject it: the init is a placeholder (`res__FREE_VAR`) the verifiers report.
    small = ir.TensorType([32, 64], ir.DataType.FP32)
    x, out = ir.Var("x", F32), ir.Var("out", F32)
    i, t, res = ir.Var("i", INDEX), ir.Var("t", TILE), ir.Var("res", small)
    body = ir.SeqStmts([ir.AssignStmt(t, tile_ops.load(x, [i * 16, 0], [16, 64])),
                        ir.AssignStmt(res, tile_ops.store(t, [i * 16, 0], out))])
    func = ir.Function("k", [x, (out, ir.ParamDirection.Out)], [small],
                       ir.SeqStmts([ir.ForStmt(i, 0, 4, 1, [], body, []), ir.ReturnStmt([res])]),
                       type=ir.FunctionType.InCore)
    assert use_after_def(ir.Program([func], "P")) == ["variable 'res'"]  # on the program as written
    with passes.PassContext([]):
        after = passes.convert_to_ssa()(ir.Program([func], "P"))
    assert "init_values=(res__FREE_VAR,)" in ir.python_print(after)
    assert use_after_def(after) == ["variable 'res'"]  # and after the pass


# -- UseAfterDef before and after ConvertToSSA --------------------------------------------------------------
def test_use_after_def_accepts_leaks_out_of_bodies_but_not_loop_variables_or_iter_args():
    n, i, j, t, u = ir.Var("n", INDEX), ir.Var("i", INDEX), ir.Var("j", INDEX), ir.Var("t", INDEX), ir.Var("u", INDEX)
    a, rv = ir.IterArg("a", INDEX, n), ir.Var("rv", INDEX)
    inner = ir.IfStmt(ir.Gt(j, c(1), ir.DataType.BOOL), ir.AssignStmt(u, j), None, [])
    nested = ir.ForStmt(i, 0, 4, 1, [], ir.ForStmt(j, 0, 4, 1, [], ir.SeqStmts([ir.AssignStmt(t, j), inner]), []), [])
    carried = ir.ForStmt(ir.Var("m", INDEX), 0, 4, 1, [a], ir.YieldStmt([a]), [rv])
    func = ir.Function("f", [n], [INDEX], ir.SeqStmts([nested, carried, ir.EvalStmt(t + u), ir.EvalStmt(a),
                                                       ir.ReturnStmt([j])]))
    assert use_after_def(func) == ["variable 'a'", "variable 'j'"]
    assert use_after_def(func, strict=True) == ["variable 't'", "variable 'u'", "variable 'a'", "variable 'j'"]


def test_use_after_def_still_rejects_a_use_before_the_definition_in_a_loop_body():
    i, t = ir.Var("i", INDEX), ir.Var("t", INDEX)
    loop = ir.ForStmt(i, 0, 4, 1, [], ir.SeqStmts([ir.EvalStmt(t), ir.AssignStmt(t, i)]), [])
    assert use_after_def(ir.Function("f", [], [INDEX], ir.SeqStmts([loop, ir.ReturnStmt([t])]))) == ["variable 't'"]


# -- pl.unroll -------------------------------------------------------------------------------------------------
@pytest.mark.unverified
def test_convert_to_ssa_still_carries_through_an_unroll_loop():
    # Only the DSL form `pl.unroll(..., init_values=...)` is rejected; ConvertToSSA's own carries stay (PyPTO).
    after = ssa('''
@pl.function
def f(x: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
    s = 0
    for i in pl.unroll(3):
        s = s + i
    return s
''')
    loop = ir.flatten_to_stmts(after.get_function("f").body)[1]
    assert loop.kind is ir.ForKind.Unroll and [a.name_hint for a in loop.iter_args] == ["s__iter_v1"]


def test_pipeline_keeps_init_values():
    program = pl.parse(HEADER + '''
@pl.function
def f(x: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
    for i, (a,) in pl.pipeline(4, stage=2, init_values=(x,)):
        r = pl.yield_(a + i)
    return r
''')
    loop = ir.flatten_to_stmts(program.body)[0]
    assert loop.kind is ir.ForKind.Pipeline and len(loop.iter_args) == 1


UNROLL_REBINDS = '''
import pypto.language as pl

@pl.program
class P:
    @pl.function
    def main(self, a: pl.Tensor[[32, 64], pl.FP32]) -> pl.Tensor[[32, 64], pl.FP32]:
        for i1 in pl.unroll(2):
            a[0:32, 0:64] = a
        return a
'''


def test_printing_an_unroll_loop_convert_to_ssa_gave_a_carry_is_a_located_error_with_the_fix():
    # ConvertToSSA carries through a pl.unroll loop as PyPTO's does; the DSL cannot write that loop, so
    # printing it names the loop, the carried variable and the fix instead of failing bare.
    import pytest

    import pypto.language as pl
    from pypto import ir, passes

    after = passes.convert_to_ssa()(pl.parse(UNROLL_REBINDS, "unr.py"))
    with pytest.raises(ValueError) as info:
        ir.python_print(after)
    message = str(info.value)
    assert "carries 1 value(s) ('a')" in message and "the default pipeline runs it first" in message
    assert "unr.py:8:" in message


def test_the_same_loop_unrolled_first_compiles_and_runs():
    import pypto.language as pl
    from pypto import passes
    from pypto_core.testing import same_results

    before = pl.parse(UNROLL_REBINDS)
    after = passes.convert_to_ssa()(passes.unroll_loops()(before))
    same_results(before, after)

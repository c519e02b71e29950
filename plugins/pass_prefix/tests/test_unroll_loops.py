"""UnrollLoops (docs/passes/unroll_loops.md): PyPTO's worked examples, errors, verifier, the pl.unroll program
ConvertToSSA could not print, and the machine giving the same results before and after."""

from __future__ import annotations

import textwrap

import pytest

import pypto
import pypto.language as pl
from pypto import ir, passes
from pypto_core.errors import InternalError
from pypto_core.passes.properties import IRProperty, IRPropertySet
from pypto_core.passes.verifier_registry import PropertyVerifierRegistry
from pypto_core.testing import same_results

HEADER = "import pypto.language as pl\n\n"

E1 = HEADER + '''
@pl.program
class P:
    @pl.function
    def main(self, a: pl.Tensor[[64], pl.FP32], o: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        # unrolled tiles
        for i in pl.unroll(2, attrs={"note": 1}):
            for j in pl.unroll(5, 1, -2):
                t = pl.slice(a, [16], [i * 32 + j])
                o = pl.assemble(o, t, [i * 32 + j])
        for k in pl.unroll(3, 3):
            o = pl.add(o, 1.0)
        return o
'''

E1_BODY = '''
# unrolled tiles
t: pl.Tensor[[16], pl.FP32] = pl.tensor.slice(a, [16], [pl.const(0, pl.INDEX) * pl.const(32, pl.INDEX) + pl.const(5, pl.INDEX)])
o: pl.Tensor[[64], pl.FP32] = pl.tensor.assemble(o, t, [pl.const(0, pl.INDEX) * pl.const(32, pl.INDEX) + pl.const(5, pl.INDEX)])
t: pl.Tensor[[16], pl.FP32] = pl.tensor.slice(a, [16], [pl.const(0, pl.INDEX) * pl.const(32, pl.INDEX) + pl.const(3, pl.INDEX)])
o: pl.Tensor[[64], pl.FP32] = pl.tensor.assemble(o, t, [pl.const(0, pl.INDEX) * pl.const(32, pl.INDEX) + pl.const(3, pl.INDEX)])
t: pl.Tensor[[16], pl.FP32] = pl.tensor.slice(a, [16], [pl.const(1, pl.INDEX) * pl.const(32, pl.INDEX) + pl.const(5, pl.INDEX)])
o: pl.Tensor[[64], pl.FP32] = pl.tensor.assemble(o, t, [pl.const(1, pl.INDEX) * pl.const(32, pl.INDEX) + pl.const(5, pl.INDEX)])
t: pl.Tensor[[16], pl.FP32] = pl.tensor.slice(a, [16], [pl.const(1, pl.INDEX) * pl.const(32, pl.INDEX) + pl.const(3, pl.INDEX)])
o: pl.Tensor[[64], pl.FP32] = pl.tensor.assemble(o, t, [pl.const(1, pl.INDEX) * pl.const(32, pl.INDEX) + pl.const(3, pl.INDEX)])
return o'''

E2 = HEADER + '''
@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64], pl.FP32]:
        for i in pl.unroll(2):
            for j in pl.range(n):
                x = pl.add(x, pl.cast(i, pl.FP32))
        return x
'''


def body_text(program: ir.Program, name: str = "main") -> str:
    lines = ir.python_print(program).splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip().startswith(f"def {name}(")) + 1
    end = next((i for i in range(start, len(lines)) if lines[i].strip().startswith("@pl.function")), len(lines))
    return textwrap.dedent("\n".join(lines[start:end])).strip("\n")


def unroll_errors(program: ir.Program) -> list:
    return PropertyVerifierRegistry.verify(IRPropertySet([IRProperty.UnrollResolved]), program)


def test_the_pass_surface():
    p = passes.unroll_loops()
    assert p.get_name() == "UnrollLoops"
    assert p.get_required_properties().empty()
    assert str(p.get_produced_properties()) == "{UnrollResolved}"
    assert p.get_invalidated_properties().empty()


def test_e1_nested_unroll_negative_step_attrs_zero_trips_and_the_comment():
    before = pl.parse(E1)
    assert "pl.unroll(" in ir.python_print(before)
    after = passes.unroll_loops()(before)
    assert body_text(after) == E1_BODY.strip("\n")
    body = after.get_function("main").body
    # pypto splices the copies flat (PyPTO leaves four nested SeqStmts[2]): NoRedundantBlocks holds.
    assert isinstance(body, ir.SeqStmts) and len(body.stmts) == 9
    assert not any(isinstance(s, ir.SeqStmts) for s in body.stmts)
    assert unroll_errors(after) == []
    same_results(before, after)


def test_e1_under_the_verification_instrument_before_and_after():
    from pypto_core.passes.instruments.verification import VerificationInstrument, VerificationMode

    with passes.PassContext([VerificationInstrument(VerificationMode.BEFORE_AND_AFTER)]):
        after = passes.unroll_loops()(pl.parse(E1))
    assert "pl.unroll(" not in ir.python_print(after)


def test_e2_unroll_around_a_sequential_loop_then_ssa():
    before = pl.parse(E2)
    after = passes.unroll_loops()(before)
    loops = [s for s in ir.flatten_to_stmts(after.get_function("main").body) if isinstance(s, ir.ForStmt)]
    assert [loop.kind for loop in loops] == [ir.ForKind.Sequential, ir.ForKind.Sequential]
    assert [loop.loop_var.name_hint for loop in loops] == ["j", "j"]
    ssa = passes.convert_to_ssa()(after)
    text = body_text(ssa)
    assert "pl.unroll" not in text and text.count("pl.range(n__ssa_v0, init_values=") == 2
    same_results(before, ssa)


def test_a_single_level_unroll_of_a_two_statement_body_is_flat():
    src = HEADER + '''
@pl.function
def main(a: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
    for i in pl.unroll(2):
        a = pl.add(a, 1.0)
        a = pl.mul(a, 2.0)
    return a
'''
    after = passes.unroll_loops()(ir.Program([pl.parse(src)], "P"))
    body = after.get_function("main").body
    assert isinstance(body, ir.SeqStmts) and len(body.stmts) == 5


def test_an_unroll_that_is_a_whole_loop_body_and_one_that_has_no_iteration():
    src = HEADER + '''
@pl.function
def main(a: pl.Tensor[[4, 64], pl.FP32], o: pl.Out[pl.Tensor[[4, 64], pl.FP32]]) -> pl.Tensor[[4, 64], pl.FP32]:
    for r in pl.range(2):
        for c in pl.unroll(2):
            t = pl.slice(a, [1, 64], [r * 2 + c, 0])
            o = pl.assemble(o, pl.mul(t, 2.0), [r * 2 + c, 0])
    if True:
        for k in pl.unroll(4, 0):
            o = pl.add(o, 1.0)
    return o
'''
    before = ir.Program([pl.parse(src)], "P")
    after = passes.unroll_loops()(before)
    assert "pl.unroll" not in ir.python_print(after)
    assert unroll_errors(after) == []
    same_results(before, after)


def test_a_function_without_unroll_loops_is_the_same_object():
    src = HEADER + '''
@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64], pl.FP32]:
        for j in pl.range(n):
            x = pl.add(x, 1.0)
        return x
'''
    program = pl.parse(src)
    after = passes.unroll_loops()(program)
    assert after.get_function("main") is program.get_function("main")


def test_call_attrs_are_substituted_device_of_a_host_dispatch():
    src = HEADER + '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def leaf(self, x: pl.Tensor[[16], pl.FP32]) -> pl.Tensor[[16], pl.FP32]:
        y = pl.add(x, 1.0)
        return y

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def top(self, bufs: pl.Out[pl.Tensor[[2, 16], pl.FP32]]) -> pl.Tensor[[2, 16], pl.FP32]:
        for d in pl.unroll(2):
            self.leaf(bufs[d], device=d)
        return bufs
'''
    before = pl.parse(src)
    after = passes.unroll_loops()(before)
    assert body_text(after, "top") == textwrap.dedent('''
        self.leaf(pl.tensor.slice(bufs, [1, 16], [0, 0], [], [0]), device=0)
        self.leaf(pl.tensor.slice(bufs, [1, 16], [1, 0], [], [0]), device=1)
        return bufs''').strip("\n")
    same_results(before, after)


# -- the program ConvertToSSA could not print -------------------------------------------------------------------
ASSIGN_IN_UNROLL = HEADER + '''
@pl.program
class P:
    @pl.function
    def main(self, a: pl.Tensor[[32, 64], pl.FP32], o: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        for i1 in pl.unroll(2):
            a[0:32, 0:64] = a
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(a, [0, 0], [32, 64])
            o = pl.store(pl.add(t, 1.0), [0, 0], o)
        return o
'''

TODAYS_DEFAULT = ("convert_to_ssa,normalize_stmt_structure,outline_incore_scopes,convert_tensor_to_tile_ops,"
                  "flatten_tile_nd_to_2d,infer_tile_memory_space,lower_auto_vector_split,expand_mixed_kernel,"
                  "split_vector_kernel")


@pytest.mark.unverified
def test_without_the_pass_convert_to_ssa_gives_the_unroll_loop_a_carry_the_printer_refuses():
    ssa = passes.convert_to_ssa()(pl.parse(ASSIGN_IN_UNROLL))
    with pytest.raises(ValueError, match="pl.unroll does not support iter_args"):
        ir.python_print(ssa)


def test_with_the_pass_first_the_program_compiles_and_runs_the_same(pypto_check_pipeline):
    after = pypto_check_pipeline(pl.parse(ASSIGN_IN_UNROLL), "unroll_loops," + TODAYS_DEFAULT)
    assert "pl.unroll" not in ir.python_print(after)


# -- errors -----------------------------------------------------------------------------------------------------
def _hand_built(start: ir.Expr, stop: ir.Expr, step: ir.Expr, iter_args=()) -> ir.Program:
    i = ir.Var("i", ir.ScalarType(ir.DataType.INDEX))
    n = ir.Var("n", ir.ScalarType(ir.DataType.INDEX))
    x = ir.Var("x", ir.ScalarType(ir.DataType.INDEX))
    body = ir.AssignStmt(x, i)
    loop = ir.ForStmt(i, start, n if stop is None else stop, step, list(iter_args), body, [],
                      kind=ir.ForKind.Unroll)
    func = ir.Function("f", [n], [], ir.SeqStmts([ir.AssignStmt(x, ir.ConstInt(0)), loop, ir.ReturnStmt([])]))
    return ir.Program([func], "P")


@pytest.mark.unverified
def test_a_variable_bound_is_not_a_compile_time_constant():
    with pytest.raises(ValueError, match="Unroll loop stop must be a compile-time integer constant, got Var"):
        passes.unroll_loops()(_hand_built(ir.ConstInt(0), None, ir.ConstInt(1)))


@pytest.mark.unverified
def test_a_zero_step_is_rejected():
    with pytest.raises(ValueError, match="Unroll loop step cannot be zero"):
        passes.unroll_loops()(_hand_built(ir.ConstInt(0), ir.ConstInt(4), ir.ConstInt(0)))


@pytest.mark.unverified
def test_iter_args_are_an_internal_error():
    init = ir.IterArg("acc", ir.ScalarType(ir.DataType.INDEX), ir.ConstInt(0))
    with pytest.raises(InternalError, match="Unroll loops cannot have iter_args"):
        passes.unroll_loops()(_hand_built(ir.ConstInt(0), ir.ConstInt(4), ir.ConstInt(1), [init]))


@pytest.mark.unverified
def test_negated_constants_are_bounds():
    after = passes.unroll_loops()(_hand_built(ir.Neg(ir.ConstInt(1), ir.DataType.INDEX), ir.ConstInt(1),
                                              ir.ConstInt(1)))
    values = [s.value.value for s in ir.flatten_to_stmts(after.get_function("f").body)
              if isinstance(s, ir.AssignStmt) and isinstance(s.value, ir.ConstInt)]
    assert values == [0, -1, 0]


def test_more_than_1024_iterations_are_rejected():
    src = HEADER + '''
@pl.function
def main(a: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
    for i in pl.unroll(0, 2050, 2):
        a = pl.add(a, 1.0)
    return a
'''
    with pytest.raises(ValueError, match=r"Unroll loop trip count 1025 exceeds maximum allowed \(1024\)\. "
                                         r"Reduce the loop range or use pl.range\(\) instead"):
        passes.unroll_loops()(ir.Program([pl.parse(src)], "P"))


# -- the verifier and the passes that must accept an unroll loop ------------------------------------------------------
@pytest.mark.unverified
def test_the_verifier_reports_each_surviving_unroll_loop():
    diags = unroll_errors(pl.parse(E1))
    assert len(diags) == 3  # i, j (nested) and k
    assert all(d.rule_name == "UnrollResolved" and d.error_code == 0 for d in diags)
    assert diags[0].message.startswith("ForKind::Unroll survived past UnrollLoops in function 'main'.")


@pytest.mark.unverified
def test_convert_to_ssa_flatten_call_expr_and_run_verifier_accept_an_unroll_loop():
    program = pl.parse(E1)
    ssa = passes.convert_to_ssa()(program)
    passes.flatten_call_expr()(passes.normalize_stmt_structure()(ssa))
    passes.run_verifier()(ssa)  # the default properties: no finding about the loop
    with pytest.raises(pypto.Error, match="ForKind::Unroll survived"):
        passes.run_verifier([IRProperty.UnrollResolved])(program)

"""The generic IR walk (pypto_core/analysis/walk.py): program order, nested calls, scopes it stops at, reads
without definitions, an iter_arg's initial value at its loop's header."""

from __future__ import annotations

import pypto.language as pl
from pypto_core.analysis.walk import kernels, op_calls, statements, vars_read, walk
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import FunctionType

LOOP = """
import pypto.language as pl

@pl.function
def f(x: pl.Tensor[[16], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[16], pl.FP32]:
    acc = pl.add(pl.exp(x), x)
    for i, (a,) in pl.range(n, init_values=(acc,)):
        b = pl.mul(a, x)
        a2 = pl.yield_(b)
    return a2
"""

SCOPED = """
import pypto.language as pl

@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[16], pl.FP32], out: pl.Out[pl.Tensor[[16], pl.FP32]]) -> pl.Tensor[[16], pl.FP32]:
        y = pl.exp(x)
        with pl.at(level=pl.Level.CORE_GROUP):
            out = pl.assemble(out, pl.add(y, 1.0), [0])
        return out
"""


def test_op_calls_are_in_program_order_with_nested_calls_after_their_parent():
    f = pl.parse(LOOP)
    assert [c.op.name for c in op_calls(f)] == ["tensor.add", "tensor.exp", "tensor.mul"]


def test_a_scope_in_stop_at_is_not_entered():
    main = pl.parse(SCOPED).get_function("main")
    assert [c.op.name for c in op_calls(main.body)] == ["tensor.exp", "tensor.assemble", "tensor.adds"]
    assert [c.op.name for c in op_calls(main.body, stop_at=(S.ScopeStmt,))] == ["tensor.exp"]


def test_reads_leave_out_definitions_and_take_an_iter_args_initial_value_at_the_header():
    f = pl.parse(LOOP)
    assert [v.name_hint for v in vars_read(f.body)] == ["x", "x", "n", "acc", "a", "x", "b", "a2"]


def test_definitions_are_walked_by_default():
    f = pl.parse(LOOP)
    names = [n.name_hint for n in walk(f.body) if hasattr(n, "name_hint")]
    assert names[:2] == ["acc", "x"] and "i" in names and "a" in names


def test_statements_outer_before_inner():
    f = pl.parse(LOOP)
    kinds = [type(s).__name__ for s in statements(f)]
    assert kinds == ["SeqStmts", "AssignStmt", "ForStmt", "SeqStmts", "AssignStmt", "YieldStmt", "ReturnStmt"]


def test_kernels_are_the_functions_holding_tile_code():
    from pypto import passes

    program = passes.outline_incore_scopes()(passes.convert_to_ssa()(pl.parse(SCOPED)))
    assert [f.func_type for f in kernels(program)] == [FunctionType.InCore]
    assert [f.name for f in kernels(program, (FunctionType.Orchestration,))] == ["main"]

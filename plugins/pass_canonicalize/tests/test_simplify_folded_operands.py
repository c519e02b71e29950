"""Simplify: an operand folded into a constant takes the form the op's DSL gives a literal there, so the printed
program reads back to the same IR (docs/passes/simplify.md, "Folded operands")."""

from __future__ import annotations

import pytest

import pypto.language as pl
from pypto import ir, passes
from pypto_core.ir import expr as E
from pypto_core.ir.dtypes import DataType
from pypto_core.ops.literal_operands import with_literal_operands
from pypto_core.testing import same_results
from pypto_plugins.pass_canonicalize.tests.helpers import body_text, program


def simplified_and_read_back(before: ir.Program) -> ir.Program:
    after = passes.simplify()(before)
    ir.assert_structural_equal(after, pl.parse(ir.python_print(after)))
    for seed in (0, 1):
        same_results(before, after, seed=seed)
    return after


def operand(prog: ir.Program, func: str, op_name: str, index: int) -> E.Expr:
    found: list[E.Expr] = []

    class Find(ir.IRVisitor):
        def visit_call(self, call: E.Call) -> None:
            if call.op.name == op_name:
                found.append(call.args[index])
            super().visit_call(call)

    Find().visit_function(prog.get_function(func))
    assert len(found) == 1, found
    return found[0]


@pytest.mark.parametrize(("dtype", "op"), [
    ("FP32", "maximum"),   # the fuzz finding: `pl.maximum(x, pl.add(1, 2))` read back as 3.0
    ("FP16", "add"),
    ("BF16", "sub"),
])
def test_a_folded_scalar_expression_takes_the_literal_form(dtype, op):
    before = program(f'''
@pl.function
def main(x: pl.Tensor[[16, 16], pl.{dtype}]) -> pl.Tensor[[16, 16], pl.{dtype}]:
    y = pl.{op}(x, pl.add(1, 2))
    return y
''')
    after = simplified_and_read_back(before)
    folded = operand(after, "main", after.get_function("main").body.stmts[0].value.op.name, 1)
    assert type(folded) is E.ConstFloat and folded.value == 3.0
    assert folded.type.dtype is DataType[dtype]


@pytest.mark.parametrize("dtype", ["INT32", "INT16"])
def test_an_operand_whose_literal_would_change_the_type_stays_unfolded(dtype):
    """An INDEX expression promotes an integer tensor to INDEX, a literal does not: the expression is kept."""
    before = program(f'''
@pl.function
def main(x: pl.Tensor[[16, 16], pl.{dtype}]) -> pl.Tensor[[16, 16], pl.INDEX]:
    y = pl.mul(x, pl.add(1, 2))
    return y
''')
    after = simplified_and_read_back(before)
    assert body_text(after, "main")[0] == "y: pl.Tensor[[16, 16], pl.INDEX] = pl.tensor.muls(x, pl.const(1, pl.INDEX) + pl.const(2, pl.INDEX))"


def test_a_propagated_scalar_variable_takes_the_literal_form_too():
    before = program('''
@pl.function
def main(x: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:
    c: pl.Scalar[pl.INDEX] = pl.add(2, 2)
    y = pl.add(x, c)
    return y
''')
    after = simplified_and_read_back(before)
    assert body_text(after, "main")[0] == "y: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.adds(x, 4.0)"


def test_a_folded_operand_of_a_tile_op_in_a_kernel():
    before = program('''
@pl.function(type=pl.FunctionType.InCore)
def main(x: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
    t = pl.load(x, [0, 0], [16, 16])
    u = pl.tile.maxs(t, pl.mul(2, 3))
    out = pl.store(u, [0, 0], out)
    return out
''')
    after = simplified_and_read_back(before)
    folded = operand(after, "main", "tile.maximums", 1)
    assert isinstance(folded, E.ConstFloat) and folded.value == 6.0


def test_a_folded_index_stays_an_index():
    """An offset folds to a bare INDEX constant: the DSL reads a literal offset as INDEX, so nothing changes."""
    before = program('''
@pl.function
def main(x: pl.Tensor[[64, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:
    y = pl.slice(x, [16, 16], [pl.add(16, 16), 0])
    return y
''')
    after = simplified_and_read_back(before)
    offsets = operand(after, "main", "tensor.slice", 2)
    assert [(type(e), e.value, e.type.dtype) for e in offsets.elements] == [
        (E.ConstInt, 32, DataType.INDEX), (E.ConstInt, 0, DataType.INDEX)]


def test_a_function_call_is_not_rebuilt_by_an_op_of_its_name():
    """A call of a function named like a DSL op (`maximum`) is no op call: no literal form (the caller keeps it)."""
    gv = ir.GlobalVar("maximum")
    call = E.Call(gv, [E.ConstInt(3, DataType.INDEX, None)], ir.ScalarType(DataType.INDEX), None)
    assert with_literal_operands(call, [0]) is None
    assert with_literal_operands(call, []) is call

"""Return lineage of an outlined kernel's results (docs/passes/outline_incore_scopes.md, parameters): a result
that is not a store target but is the buffer of one of the kernel's parameters (through copies, loop carries
that keep the buffer, in-place writes, calls) is returned as that parameter, an In parameter included; a
carry whose body yields a new value is not that buffer, so its return var stays the result."""

from __future__ import annotations

import pytest

import pypto.language as pl
from pypto import ir
from pypto_core.testing import same_results

from .helpers import expect, outline

HEADER = "import pypto.language as pl\n\n"


def test_an_in_parameter_kept_through_a_loop_carry_is_returned_as_the_parameter():
    after = outline(HEADER + '''
@pl.program
class P:
    @pl.function
    def main(self, a: pl.Tensor[[32], pl.FP32], b: pl.Tensor[[32], pl.FP32]) -> pl.Tensor[[32], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            for j, (d,) in pl.range(4, init_values=(a,)):
                t = pl.load(d, [0], [32])
                d_rv = pl.yield_(d)
        e = pl.mul(d_rv, b)
        return e
''')
    expect(after, HEADER + '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main_incore_0(a: pl.Tensor[[32], pl.FP32]) -> pl.Tensor[[32], pl.FP32]:
        for j, (d,) in pl.range(4, init_values=(a,)):
            t: pl.Tile[[32], pl.FP32, pl.Mem.Vec] = pl.tile.load(d, [0], [32], [32], target_memory=pl.Mem.Vec)
            d_rv = pl.yield_(d)
        return a
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[32], pl.FP32], b: pl.Tensor[[32], pl.FP32]) -> pl.Tensor[[32], pl.FP32]:
        d_rv = self.main_incore_0(a)
        e = pl.tensor.mul(d_rv, b)
        return e
''')


def test_a_copy_of_an_in_parameter_is_returned_as_the_parameter_in_ssa_order():
    # The In parameter is not a distinct Out/InOut output, so the results keep SSA order.
    after = outline(HEADER + '''
@pl.program
class P:
    @pl.function
    def main(self, a: pl.Tensor[[32], pl.FP32], b: pl.Tensor[[32], pl.FP32],
             out: pl.Out[pl.Tensor[[32], pl.FP32]]) -> pl.Tensor[[32], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            y = a
            t = pl.load(b, [0], [32])
            out = pl.store(t, [0], out)
        e = pl.add(y, out)
        return e
''')
    expect(after, HEADER + '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main_incore_0(a: pl.Tensor[[32], pl.FP32], b: pl.Tensor[[32], pl.FP32],
                      out: pl.Out[pl.Tensor[[32], pl.FP32]]) -> tuple[pl.Tensor[[32], pl.FP32], pl.Tensor[[32], pl.FP32]]:
        y: pl.Tensor[[32], pl.FP32] = a
        t: pl.Tile[[32], pl.FP32, pl.Mem.Vec] = pl.tile.load(b, [0], [32], [32], target_memory=pl.Mem.Vec)
        o1: pl.Tensor[[32], pl.FP32] = pl.tile.store(t, [0], out)
        out__store: pl.Tensor[[32], pl.FP32] = o1
        return a, out
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[32], pl.FP32], b: pl.Tensor[[32], pl.FP32],
             out: pl.Out[pl.Tensor[[32], pl.FP32]]) -> pl.Tensor[[32], pl.FP32]:
        tmp: pl.Tuple[pl.Tensor[[32], pl.FP32], pl.Tensor[[32], pl.FP32]] = self.main_incore_0(a, b, out)
        y: pl.Tensor[[32], pl.FP32] = tmp[0]
        o2: pl.Tensor[[32], pl.FP32] = tmp[1]
        e: pl.Tensor[[32], pl.FP32] = pl.tensor.add(y, o2)
        return e
''')


def test_an_in_parameter_kept_through_an_if_whose_branches_agree_is_returned():
    after = outline(HEADER + '''
@pl.program
class P:
    @pl.function
    def main(self, a: pl.Tensor[[32], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[32], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            if n > 0:
                m = pl.yield_(a)
            else:
                m = pl.yield_(a)
        e = pl.add(m, 1.0)
        return e
''')
    kernel = after.get_function("main_incore_0")
    (ret,) = [s for s in ir.flatten_to_stmts(kernel.body) if isinstance(s, ir.ReturnStmt)]
    assert ret.value[0] is next(p for p in kernel.params if p.name_hint.startswith("a"))


PAGE_EXAMPLE = HEADER + '''
@pl.program
class P:
    @pl.function
    def main(self, a: pl.Tensor[[32], pl.FP32], b: pl.Tensor[[32], pl.FP32]) -> pl.Tensor[[32], pl.FP32]:
        for i, (c,) in pl.range(2, init_values=(a,)):
            with pl.at(level=pl.Level.CORE_GROUP):
                for j, (d,) in pl.range(4, init_values=(c,)):
                    e: pl.Tensor[[32], pl.FP32] = pl.mul(d, b)
                    d_rv = pl.yield_(e)
            c_rv = pl.yield_(d_rv)
        return c_rv
'''


def test_a_carry_that_yields_a_new_value_returns_its_return_var():
    # The loop's body yields `e`, a new tensor: `d_rv` is not `c`'s buffer, so the kernel returns `d_rv`.
    after = outline(PAGE_EXAMPLE)
    expect(after, HEADER + '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main_incore_0(c: pl.Tensor[[32], pl.FP32], b: pl.Tensor[[32], pl.FP32]) -> pl.Tensor[[32], pl.FP32]:
        for j, (d,) in pl.range(4, init_values=(c,)):
            e: pl.Tensor[[32], pl.FP32] = pl.tensor.mul(d, b)
            d_rv = pl.yield_(e)
        return d_rv
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[32], pl.FP32], b: pl.Tensor[[32], pl.FP32]) -> pl.Tensor[[32], pl.FP32]:
        for i, (c,) in pl.range(2, init_values=(a,)):
            d_rv = self.main_incore_0(c, b)
            c_rv = pl.yield_(d_rv)
        return c_rv
''')


def test_returning_the_init_parameter_of_such_a_carry_would_change_the_result():
    # Why the walk stops at a carry whose yield is a new value: the form that returns `c` computes `a`.
    written = pl.parse(PAGE_EXAMPLE)
    returns_c = pl.parse(HEADER + '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main_incore_0(c: pl.Tensor[[32], pl.FP32], b: pl.Tensor[[32], pl.FP32]) -> pl.Tensor[[32], pl.FP32]:
        for j, (d,) in pl.range(4, init_values=(c,)):
            e: pl.Tensor[[32], pl.FP32] = pl.tensor.mul(d, b)
            d_rv = pl.yield_(e)
        return c
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[32], pl.FP32], b: pl.Tensor[[32], pl.FP32]) -> pl.Tensor[[32], pl.FP32]:
        for i, (c,) in pl.range(2, init_values=(a,)):
            d_rv = self.main_incore_0(c, b)
            c_rv = pl.yield_(d_rv)
        return c_rv
''')
    with pytest.raises(AssertionError, match="computes something else"):
        same_results(written, returns_c)

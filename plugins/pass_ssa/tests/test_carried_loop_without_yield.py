"""A carried loop written without a pl.yield_ that also rebinds an outer variable.

The parser accepts `for i, (a,) in pl.range(n, init_values=(x,)):` with no yield: each carry keeps its value
(docs/dsl.md). When the body also rebinds a variable used after the loop, ConvertToSSA synthesises a carry for
it and writes the body's yield; giving only the synthesised value there would be one value for two results, and
the printed program would not parse back. Rule: that yield gives the declared carries first, unchanged.
"""

from __future__ import annotations

import pytest

import pypto.language as pl
from pypto import ir, passes
from pypto_core.testing import same_results

PROGRAM = '''import pypto.language as pl

@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[16, 32], pl.FP32], y: pl.Tensor[[16, 32], pl.FP32]) -> pl.Tensor[[16, 32], pl.FP32]:
        v = x
        for i, (a,) in pl.range(3, init_values=(x,)):
            v = pl.add(v, y)
        return v
'''

WHILE = '''import pypto.language as pl

@pl.program
class P:
    @pl.function
    def main(self, n: pl.Scalar[pl.INDEX], x: pl.Tensor[[16, 32], pl.FP32]) -> pl.Tensor[[16, 32], pl.FP32]:
        v = x
        for (k, a) in pl.while_(init_values=(0, x)):
            pl.cond(k < 0)
            v = pl.neg(v)
        return v
'''


@pytest.mark.parametrize("text", [PROGRAM, WHILE], ids=["for", "while"])
def test_the_synthesised_yield_keeps_the_declared_carries(text: str) -> None:
    before = pl.parse(text)
    after = passes.convert_to_ssa()(before)
    loop = next(s for s in ir.flatten_to_stmts(after.get_function("main").body)
                if isinstance(s, (ir.ForStmt, ir.WhileStmt)))
    last = ir.flatten_to_stmts(loop.body)[-1]
    assert isinstance(last, ir.YieldStmt) and len(last.value) == len(loop.iter_args) == len(loop.return_vars)
    for carry, value in zip(loop.iter_args, last.value):
        if carry.name_hint in ("a", "k"):
            assert value is carry  # a declared carry without a yield keeps its value
    ir.assert_structural_equal(pl.parse(ir.python_print(after)), after)
    same_results(before, after)


ONLY_DECLARED = '''import pypto.language as pl

@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[16, 32], pl.FP32], y: pl.Tensor[[16, 32], pl.FP32]) -> pl.Tensor[[16, 32], pl.FP32]:
        for i, (a,) in pl.range(1, 3, init_values=(x,)):
            t = pl.add(a, y)
        return x
'''

ONLY_DECLARED_WHILE = '''import pypto.language as pl

@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[16, 32], pl.FP32]) -> pl.Tensor[[16, 32], pl.FP32]:
        for (k, a) in pl.while_(init_values=(0, x)):
            pl.cond(k < 0)
            t = pl.neg(a)
        return x
'''

ONLY_DECLARED_IN_KERNEL = '''import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, a: pl.Tensor[[32, 64], pl.BF16], out: pl.Out[pl.Tensor[[32, 64], pl.BF16]]) -> pl.Tensor[[32, 64], pl.BF16]:
        t0 = pl.load(a, [0, 0], [32, 32])
        for k, (acc,) in pl.range(1, 2, init_values=(t0,)):
            ak = pl.load(a, [0, k * 32], [32, 32])
        out = pl.store(t0, [0, 0], out)
        return out
'''


@pytest.mark.parametrize("text", [ONLY_DECLARED, ONLY_DECLARED_WHILE, ONLY_DECLARED_IN_KERNEL],
                         ids=["for", "while", "kernel"])
def test_a_loop_with_only_declared_carries_and_no_yield_gets_one_keeping_them(text: str) -> None:
    # With no synthesised carry either, the loop still needs a yield: without one ConvertToSSA's own SSAForm
    # check fails ("for loop carries 1 value(s) but its body does not end with a yield").
    before = pl.parse(text)
    after = passes.convert_to_ssa()(before)
    loop = next(s for s in ir.flatten_to_stmts(after.get_function("main").body)
                if isinstance(s, (ir.ForStmt, ir.WhileStmt)))
    last = ir.flatten_to_stmts(loop.body)[-1]
    assert isinstance(last, ir.YieldStmt) and list(last.value) == list(loop.iter_args)
    assert len(loop.return_vars) == len(loop.iter_args)
    ir.assert_structural_equal(pl.parse(ir.python_print(after)), after)
    same_results(before, after)

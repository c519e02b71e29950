"""An if branch ending in a pl.split_aiv region whose body ends with the branch's yield.

PyPTO's ConvertToSSA appends the merge yield of a branch that is one region inside the region, and prints it
bare there (docs/dsl.md, if and yield); the parser accepts that text and a user may write it. Our SSAForm verifier, the later
passes and the machine read a branch's yield as its last statement, so left there it fails our own SSAForm check.
Rule (docs/passes/convert_to_ssa.md, if merges): the yield moves after the region; the region's values stay
visible there. Checked structurally, by the round trip, and by running the program as written and compiled.
"""

from __future__ import annotations

import pytest

import pypto.language as pl
from pypto import ir, passes
from pypto_core.testing import same_results
from pypto_plugins.pass_split.tests.pipeline_checks import compile_and_compare

HEADER = "import pypto.language as pl\n\n"

YIELD_IN_REGION = HEADER + '''@pl.program
class P:
    @pl.function
    def main(self, n: pl.Scalar[pl.INDEX], x: pl.Tensor[[64, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            blk = pl.slice(x, [16, 16], [16, 0])
            if n % 2 == 0:
                for _a in pl.split_aiv(2, mode=pl.SplitMode.MODE):
                    VALUE
                    r = pl.yield_(YIELDED)
            else:
                r = pl.yield_(blk)
            out = pl.assemble(out, r, [0, 0])
        return out
'''

CASES = {
    "a value from before the region": ("UP_DOWN", "pass", "blk"),
    "a value a full-width region computes": ("NONE", "y = pl.mul(blk, blk)", "y"),
}


def program(mode: str, value: str, yielded: str) -> str:
    return YIELD_IN_REGION.replace("MODE", mode).replace("VALUE", value).replace("YIELDED", yielded)


@pytest.mark.parametrize("case", CASES)
def test_the_yield_moves_after_the_region(case: str) -> None:
    before = pl.parse(program(*CASES[case]))
    after = passes.convert_to_ssa()(before)
    main = after.get_function("main")
    scope = next(s for s in ir.flatten_to_stmts(main.body) if isinstance(s, ir.ScopeStmt))
    branch = next(s for s in ir.flatten_to_stmts(scope.body) if isinstance(s, ir.IfStmt))
    then = ir.flatten_to_stmts(branch.then_body)
    assert isinstance(then[-2], ir.SplitAivScopeStmt) and isinstance(then[-1], ir.YieldStmt)
    assert not any(isinstance(s, ir.YieldStmt) for s in ir.flatten_to_stmts(then[-2].body))
    ir.assert_structural_equal(pl.parse(ir.python_print(after)), after)
    same_results(before, after)


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
def test_the_program_compiles_and_computes_the_same(case: str, backend: str) -> None:
    compile_and_compare(program(*CASES[case]), backend)


def test_a_half_the_region_computes_cannot_leave_it_by_the_yield() -> None:
    # The moved yield reads the value after the region: a halved tile there is LowerAutoVectorSplit's located error.
    with pytest.raises(ValueError, match="'y' is halved by the UP_DOWN pl.split_aiv region") as info:
        compile_and_compare(program("UP_DOWN", "y = pl.mul(blk, blk)", "y"), "Ascend950")
    assert "--> fuzz_regression.py:12:" in str(info.value)


PYPTO_PRINTED = HEADER + '''@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def f(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        if n > 0:
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                x: pl.Scalar[pl.INDEX] = n + 1
                pl.yield_(x)
        else:
            x_1: pl.Scalar[pl.INDEX] = n - 1
            x__phi_v4: pl.Scalar[pl.INDEX] = pl.yield_(x_1)
        return x__phi_v4
'''


def test_pyptos_printed_form_with_a_bare_yield_in_the_region() -> None:
    before = pl.parse(PYPTO_PRINTED)
    after = passes.convert_to_ssa()(before)
    branch = next(s for s in ir.flatten_to_stmts(after.get_function("f").body) if isinstance(s, ir.IfStmt))
    assert isinstance(ir.flatten_to_stmts(branch.then_body)[-1], ir.YieldStmt)
    ir.assert_structural_equal(pl.parse(ir.python_print(after)), after)
    same_results(before, after)

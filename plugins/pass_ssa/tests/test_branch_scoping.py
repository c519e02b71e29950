"""The else branch of an if does not see what its then branch defined.

A variable defined in one branch of an earlier if only, then read in the else branch of a later if whose then
branch defines it, must not be left unrenamed (`m__FREE_VAR` in the printed program), as it would be if defining
it in the then branch brought it back into scope for the else branch too. Each branch starts from the scoping
before the if, so the read is an escape of the earlier if like any other (docs/passes/convert_to_ssa.md) and
gets its phi.
"""

from __future__ import annotations

import pytest

import pypto.language as pl
from pypto import ir, passes
from pypto_core.testing import same_results

T = "pl.Tensor[[16, 64], pl.FP32]"


def program(first_condition: str, else_branch: str) -> str:
    return ("import pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function\n"
            f"    def main(self, x: {T}, n: pl.Scalar[pl.INDEX]) -> {T}:\n"
            f"        if {first_condition}:\n            m = x\n"
            "        if n == 4:\n            m = x\n        else:\n"
            f"            {else_branch}\n        return m\n")


@pytest.mark.parametrize("first_condition", ["1 < 2", "n > 0"])
@pytest.mark.parametrize("else_branch", ["m = pl.add(m, x)", "m = pl.mul(pl.add(m, x), m)"])
def test_a_read_in_the_else_branch_of_a_variable_the_then_branch_defines(first_condition, else_branch):
    before = pl.parse(program(first_condition, else_branch))
    after = passes.convert_to_ssa()(before)
    printed = ir.python_print(after)
    assert "__FREE_VAR" not in printed, printed
    first = next(s for s in ir.flatten_to_stmts(after.get_function("main").body) if isinstance(s, ir.IfStmt))
    assert [v.name_hint for v in first.return_vars] == ["m__phi_v1"]  # the earlier if now merges m
    ir.assert_structural_equal(pl.parse(printed), after)
    same_results(before, after)

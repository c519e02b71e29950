"""ConvertToSSA: which names an if merges when its branches hold nested ifs (docs/passes/convert_to_ssa.md, if merges).

A branch defines a name at its own level by an assignment, a loop, or a nested if that merges the name itself.
A name each outer branch assigns inside only one branch of a nested if gets no phi at either level (PyPTO's
rule); one that both branches of the nested if define, or that the nested if rebinds, does.
"""

from __future__ import annotations

import numpy as np
import pytest

import pypto.language as pl
from pypto import ir, passes
from pypto_core.interp import run_program
from pypto_core.testing import same_results

HEADER = "import pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function(type=pl.FunctionType.InCore)\n"
SIGNATURE = ("    def main(self, x: pl.Tensor[[16, 32], pl.FP32], first: pl.Scalar[pl.INDEX], "
             "last: pl.Scalar[pl.INDEX],\n             out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) "
             "-> pl.Tensor[[16, 32], pl.FP32]:\n")


def program(body: str) -> ir.Program:
    return pl.parse(HEADER + SIGNATURE + body)


ONE_ARM_EACH = """\
        t: pl.Tile[[16, 32], pl.FP32] = pl.load(x, [0, 0], [16, 32])
        if first == 1:
            if last == 1:
                d = pl.add(t, 1.0)
                out = pl.store(d, [0, 0], out)
            else:
                out = pl.store(t, [0, 0], out)
        else:
            if last == 1:
                d = pl.mul(t, 2.0)
                out = pl.store(d, [0, 0], out)
            else:
                out = pl.store(t, [0, 0], out)
        return out
"""

ONE_ARM_EACH_EXPECTED = """\
        t__ssa_v0: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(x__ssa_v0, [0, 0], [16, 32], [16, 32], target_memory=pl.Mem.Vec)
        if first__ssa_v0 == 1:
            if last__ssa_v0 == 1:
                d__ssa_v0: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.adds(t__ssa_v0, 1.0)
                out__ssa_v1: pl.Tensor[[16, 32], pl.FP32] = pl.tile.store(d__ssa_v0, [0, 0], out__ssa_v0)
                out__phi_v3: pl.Tensor[[16, 32], pl.FP32] = pl.yield_(out__ssa_v1)
            else:
                out__ssa_v2: pl.Tensor[[16, 32], pl.FP32] = pl.tile.store(t__ssa_v0, [0, 0], out__ssa_v0)
                out__phi_v3: pl.Tensor[[16, 32], pl.FP32] = pl.yield_(out__ssa_v2)
            out__phi_v7: pl.Tensor[[16, 32], pl.FP32] = pl.yield_(out__phi_v3)
        else:
            if last__ssa_v0 == 1:
                d__ssa_v1: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.muls(t__ssa_v0, 2.0)
                out__ssa_v4: pl.Tensor[[16, 32], pl.FP32] = pl.tile.store(d__ssa_v1, [0, 0], out__ssa_v0)
                out__phi_v6: pl.Tensor[[16, 32], pl.FP32] = pl.yield_(out__ssa_v4)
            else:
                out__ssa_v5: pl.Tensor[[16, 32], pl.FP32] = pl.tile.store(t__ssa_v0, [0, 0], out__ssa_v0)
                out__phi_v6: pl.Tensor[[16, 32], pl.FP32] = pl.yield_(out__ssa_v5)
            out__phi_v7: pl.Tensor[[16, 32], pl.FP32] = pl.yield_(out__phi_v6)
        return out__phi_v7
"""

EXPECTED_SIGNATURE = (
    "    def main(self, x__ssa_v0: pl.Tensor[[16, 32], pl.FP32], first__ssa_v0: pl.Scalar[pl.INDEX], "
    "last__ssa_v0: pl.Scalar[pl.INDEX], out__ssa_v0: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) "
    "-> pl.Tensor[[16, 32], pl.FP32]:\n")

# Nested ifs that merge `d` themselves (both of their branches define it, or one rebinds it): the outer if
# merges it too.
NESTED_MERGES = """\
        t: pl.Tile[[16, 32], pl.FP32] = pl.load(x, [0, 0], [16, 32])
        if first == 1:
            if last == 1:
                d = pl.add(t, 1.0)
            else:
                d = pl.add(t, 3.0)
        else:
            d = pl.mul(t, 2.0)
            if last == 1:
                d = pl.mul(d, 5.0)
        out = pl.store(d, [0, 0], out)
        return out
"""

# One outer branch defines `d` only inside one branch of a nested if, the other directly: no outer phi, and
# `d` is read only inside.
MIXED_LEVELS = """\
        t: pl.Tile[[16, 32], pl.FP32] = pl.load(x, [0, 0], [16, 32])
        if first == 1:
            if last == 1:
                d = pl.add(t, 1.0)
                out = pl.store(d, [0, 0], out)
        else:
            d = pl.mul(t, 2.0)
            out = pl.store(d, [0, 0], out)
        return out
"""


def expected_one_arm_each(x: np.ndarray, first: int, last: int) -> np.ndarray:
    if last != 1:
        return x
    return x + 1.0 if first == 1 else x * 2.0


def expected_nested_merges(x: np.ndarray, first: int, last: int) -> np.ndarray:
    if first == 1:
        return x + 1.0 if last == 1 else x + 3.0
    return x * 2.0 * (5.0 if last == 1 else 1.0)


def expected_mixed_levels(x: np.ndarray, first: int, last: int) -> np.ndarray:
    if first == 1:
        return x + 1.0 if last == 1 else np.zeros_like(x)
    return x * 2.0


def outer_if(program: ir.Program) -> ir.IfStmt:
    return next(s for s in ir.flatten_to_stmts(program.get_function("main").body) if isinstance(s, ir.IfStmt))


def phi_names(stmt: ir.IfStmt) -> list[str]:
    return [v.name_hint for v in stmt.return_vars]


def nested_ifs(stmt: ir.IfStmt) -> list[ir.IfStmt]:
    return [s for body in (stmt.then_body, stmt.else_body) if body is not None
            for s in ir.flatten_to_stmts(body) if isinstance(s, ir.IfStmt)]


def test_a_name_each_branch_defines_in_one_nested_branch_gets_no_phi_at_either_level():
    after = passes.convert_to_ssa()(program(ONE_ARM_EACH))
    ir.assert_structural_equal(after, pl.parse(HEADER + EXPECTED_SIGNATURE + ONE_ARM_EACH_EXPECTED))
    assert phi_names(outer_if(after)) == ["out__phi_v7"]
    assert [phi_names(s) for s in nested_ifs(outer_if(after))] == [["out__phi_v3"], ["out__phi_v6"]]


def test_nested_ifs_that_merge_the_name_make_the_outer_if_merge_it():
    after = passes.convert_to_ssa()(program(NESTED_MERGES))
    assert [n.split("__")[0] for n in phi_names(outer_if(after))] == ["d"]
    then_if, else_if = nested_ifs(outer_if(after))
    assert [n.split("__")[0] for n in phi_names(then_if)] == ["d"]  # both of its branches define d
    assert [n.split("__")[0] for n in phi_names(else_if)] == ["d"]  # it rebinds d
    ir.assert_structural_equal(pl.parse(ir.python_print(after)), after)


def test_one_branch_defining_the_name_only_inside_a_nested_branch_gives_no_outer_phi():
    after = passes.convert_to_ssa()(program(MIXED_LEVELS))
    assert [n.split("__")[0] for n in phi_names(outer_if(after))] == ["out"]


@pytest.mark.parametrize(("body", "expected"), [(ONE_ARM_EACH, expected_one_arm_each),
                                                (NESTED_MERGES, expected_nested_merges),
                                                (MIXED_LEVELS, expected_mixed_levels)])
@pytest.mark.parametrize(("first", "last"), [(0, 0), (0, 1), (1, 0), (1, 1)])
def test_the_converted_program_computes_the_numpy_formula(body, expected, first, last):
    before = program(body)
    after = passes.convert_to_ssa()(before)
    x = np.random.default_rng(first * 2 + last).standard_normal((16, 32)).astype(np.float32)
    inputs = {"x": x, "first": first, "last": last, "out": np.zeros((16, 32), np.float32)}
    for prog in (before, after):
        got = run_program(prog, inputs, "main")["out"]
        np.testing.assert_allclose(got, expected(x, first, last), rtol=1e-6)
    same_results(before, after)


def test_a_use_after_the_outer_if_of_a_name_set_in_one_nested_branch_is_a_located_escape_of_the_outer_if():
    from pypto_core.passes.verifiers.use_after_def import verify_use_after_def

    body = ONE_ARM_EACH.replace("        return out\n", "        out = pl.store(d, [0, 0], out)\n        return out\n")
    findings = verify_use_after_def(program(body))
    assert len(findings) == 1
    message = findings[0].message
    assert "'d' is assigned only inside one branch of the if at <string>:9:9" in message  # the outer if
    assert "give it a value before the if" in message
    assert findings[0].span.to_string() == "<string>:21:9"  # the use

"""A CORE_GROUP scope holding a pl.split_aiv region runs on both AIV lanes, as the split_aiv kernel it is outlined
into does (pypto_core/interp/stmts.py; docs/architecture.md, the reference machine): what the lanes do outside the regions is race-checked on
the program as written, so the machine judges the program alike before and after OutlineIncoreScopes."""

import numpy as np
import pytest

import pypto.language as pl
from pypto import passes
from pypto_core.interp import MachineError, make_inputs, run_program
from pypto_core.testing import same_results

# (Built from parts: tests/tile/test_tile_existing_programs.py runs every whole program string found here.)
HEAD = "import pypto.language as pl\n\n" + "@pl.program\nclass P:\n    @pl.function\n"
SIG = ("    def main(self, x: pl.Tensor[[32, 64], pl.FP32], y: pl.Tensor[[16, 64], pl.FP32],\n"
       "             out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:\n")


def _scope(step: int) -> str:
    # Iteration i stores 16 rows at row i * step: with step 1 the two iterations' windows overlap.
    return HEAD + SIG + f'''        with pl.at(level=pl.Level.CORE_GROUP):
            for i in pl.range(2):
                blk = pl.slice(x, [16, 64], [i * 16, 0])
                if i == 0:
                    for aiv in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                        r = pl.yield_(y)
                else:
                    r = pl.yield_(blk)
                out = pl.assemble(out, r, [i * {step}, 0])
        return out
'''


def _run(text: str):
    program = pl.parse(text, "scope.py")
    inputs = make_inputs(program.get_function("main"), seed=5)
    return program, inputs, run_program(program, inputs)


def test_overlapping_stores_outside_the_region_race_on_the_program_as_written():
    with pytest.raises(MachineError) as info:
        _run(_scope(1))
    message = str(info.value)
    assert "GM race on tensor 'out'" in message and "write different values to the same elements" in message
    assert "core-group scope with regions[lane 1]" in message and "core-group scope with regions[lane 0]" in message
    assert "--> scope.py:16:" in message, message


def test_the_same_stores_on_disjoint_windows_run_and_outline_to_the_same_results():
    program, inputs, result = _run(_scope(16))
    expected = np.concatenate([inputs["y"], inputs["x"][16:32]])
    np.testing.assert_allclose(result["out"], expected)
    outlined = passes.outline_incore_scopes()(passes.convert_to_ssa()(program))
    same_results(program, outlined)


def test_a_scope_without_a_region_runs_once():
    # Stores of different values to one window in program order: no lanes, so no race.
    text = HEAD + SIG + '''        with pl.at(level=pl.Level.CORE_GROUP):
            for i in pl.range(2):
                out = pl.assemble(out, pl.slice(x, [16, 64], [i * 16, 0]), [i, 0])
        return out
'''
    _, inputs, result = _run(text)
    np.testing.assert_allclose(result["out"][1:17], inputs["x"][16:32])

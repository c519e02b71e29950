"""ExpandMixedKernel leaves no empty trailing yield (docs/passes/expand_mixed_kernel.md, placement): a side that
keeps none of a loop's carries (or none of an if's merged values) ends the body without `pl.yield_()`."""

from __future__ import annotations

import pytest

from .emk_helpers import BACKENDS, has_lines, printed, ssa_emk

LOOP = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.FP32], b: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        for i in pl.range(2):
            a_m = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
            b_m = pl.load(b, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
            a_l = pl.move(a_m, target_memory=pl.Mem.Left)
            b_r = pl.move(b_m, target_memory=pl.Mem.Right)
            c = pl.tile.matmul(a_l, b_r)
            v = pl.move(c, target_memory=pl.Mem.Vec)
            w = pl.tile.add(v, v)
            out = pl.store(w, [0, 0], out)
        return out
'''


@pytest.mark.parametrize("backend_name", BACKENDS)
def test_a_loop_whose_carries_all_stay_on_the_other_side_has_no_yield(backend_name: str):
    after = ssa_emk(LOOP, backend_name)
    aic, aiv = printed(after, "k_aic"), printed(after, "k_aiv")
    assert "pl.yield_(" not in aic, aic
    assert has_lines(aic, '''
    for i__idx_v0 in pl.range(2):
        a_m__ssa_v0: pl.Tile[[16, 16], pl.FP32, pl.Mem.Mat] = pl.tile.load(a__ssa_v0, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Mat)
'''), aic
    assert aic.rstrip().endswith("pl.tile.tpush_to_aiv(c__ssa_v0, split=0)")
    assert "for i__idx_v0, (out__iter_v1,) in pl.range(2, init_values=(out__ssa_v0,)):" in aiv


IF = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, qk: pl.Tile[[16, 16], pl.FP32, pl.Mem.Mat], n: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        if n > 0:
            v = pl.move(qk, target_memory=pl.Mem.Vec)
            out = pl.store(pl.tile.exp(v), [0, 0], out)
        else:
            out = pl.store(pl.tile.full([16, 16], dtype=pl.FP32, value=0.0), [0, 0], out)
        return out
'''


@pytest.mark.parametrize("backend_name", BACKENDS)
def test_an_if_merging_nothing_on_one_side_has_no_yields_and_no_empty_else(backend_name: str):
    after = ssa_emk(IF, backend_name)
    aic = printed(after, "k_aic")
    assert "pl.yield_(" not in aic and "else:" not in aic, aic
    assert has_lines(aic, '''
    if n__ssa_v0 > 0:
        pl.tile.tpush_to_aiv(qk__ssa_v0, split=0)
'''), aic
    assert "pl.yield_(" in printed(after, "k_aiv")


"""Carries that flow through an if merge stay on both sides (docs/passes/expand_mixed_kernel.md, placement): a
branch yield of the other core's value becomes the identity yield of its carrier, the if keeps its merge, the
loop its carry, and the carry's init chain runs on that side too (even vector work on the AIC)."""

from __future__ import annotations

import pytest

from pypto_plugins.pass_split.verifiers.mixed_kernel_expanded import verify_mixed_kernel_expanded

from .emk_helpers import BACKENDS, has_lines, printed, ssa_emk

CARRY = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.FP32], b: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        s0 = pl.tile.full([16, 16], dtype=pl.FP32, value=1.0)
        s = s0
        for i in pl.range(3):
            if i > 0:
                a_m = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
                b_m = pl.load(b, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
                c = pl.tile.matmul(pl.move(a_m, target_memory=pl.Mem.Left), pl.move(b_m, target_memory=pl.Mem.Right))
                v = pl.move(c, target_memory=pl.Mem.Vec)
                s = pl.tile.mul(s, v)
        out = pl.store(s, [0, 0], out)
        return out
'''

CARRY_AIC_HEAD = '''
    s0__ssa_v0: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.full([16, 16], dtype=pl.FP32, value=1.0)
    s__ssa_v0: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = s0__ssa_v0
    for i__idx_v0, (s__iter_v1,) in pl.range(3, init_values=(s__ssa_v0,)):
'''

CARRY_AIC_TAIL = '''
            pl.tile.tpush_to_aiv(c__ssa_v0, split=0)
            s__phi_v3: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.yield_(s__iter_v1)
        else:
            s__phi_v3: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.yield_(s__iter_v1)
        s__rv_v1: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.yield_(s__phi_v3)
'''


@pytest.mark.parametrize("backend_name", BACKENDS)
def test_a_carry_routed_through_an_if_merge_stays_on_the_aic_with_its_init(backend_name: str):
    after = ssa_emk(CARRY, backend_name)  # and runs
    aic = printed(after, "k_aic")
    assert has_lines(aic, CARRY_AIC_HEAD), aic
    assert has_lines(aic, CARRY_AIC_TAIL), aic
    assert "pl.tile.mul" not in aic
    assert verify_mixed_kernel_expanded(after) == []




def test_a_carry_updated_outside_any_if_is_stripped_from_the_other_side():
    src = CARRY.replace('''            if i > 0:
                a_m''', '''            a_m''').replace("\n                ", "\n            ")
    aic = printed(ssa_emk(src, "Ascend910B"), "k_aic")
    assert "init_values" not in aic and "pl.tile.full" not in aic and "pl.yield_(" not in aic, aic

"""GM fences hoisted out of the loads' loops (docs/passes/expand_mixed_kernel.md, GM fences): the AIC pushes the
stored tile right after the cube store; the AIV pops `<origin>_gm_sync` and frees it before the statement of
the store's block that holds the load, once, not per iteration; a vector store read by the cube is not fenced."""

from __future__ import annotations

import pytest

from pypto import ir
from pypto_core.interp import MachineError

from .emk_helpers import BACKENDS, calls_of, has_lines, printed, run_text, ssa_emk
from .helpers import function

HEAD = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.FP32], w: pl.Tensor[[16, 16], pl.FP32], scratch: pl.Out[pl.Tensor[[16, 16], pl.FP32]], scratch2: pl.Out[pl.Tensor[[16, 16], pl.FP32]], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        a_m = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        w_m = pl.load(w, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        a_l = pl.move(a_m, target_memory=pl.Mem.Left)
        w_r = pl.move(w_m, target_memory=pl.Mem.Right)
        c = pl.tile.matmul(a_l, w_r)
        s2 = pl.store(c, [0, 0], scratch)
'''

ROWS = HEAD + '''        for i in pl.range(4):
            x = pl.load(s2, [i * 4, 0], [4, 16])
            out = pl.store(pl.tile.exp(x), [i * 4, 0], out)
        return out
'''

ROWS_AIC = '''
    s2__ssa_v0: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(c__ssa_v0, [0, 0], scratch__ssa_v0)
    pl.tile.tpush_to_aiv(c__ssa_v0, split=0)
'''

ROWS_AIV = '''
    scratch__ssa_v0_gm_sync: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.tpop_from_aic(split=0)
    pl.system.tfree_to_aic(scratch__ssa_v0_gm_sync)
    for i__idx_v0, (out__iter_v1,) in pl.range(4, init_values=(out__ssa_v0,)):
'''


@pytest.mark.parametrize("backend_name", BACKENDS)
def test_a_fence_for_a_load_inside_a_loop_is_hoisted_before_the_loop(backend_name: str):
    after = ssa_emk(ROWS, backend_name)
    assert has_lines(printed(after, "k_aic"), ROWS_AIC)
    assert has_lines(printed(after, "k_aiv"), ROWS_AIV), printed(after, "k_aiv")
    assert len(calls_of(function(after, "k_aiv"), "tile.tpop_from_aic")) == 1


def test_without_the_hoisted_fence_the_machine_finds_the_race():
    text = ir.python_print(ssa_emk(ROWS, "Ascend910B"), format=False)
    broken = text
    for line in ROWS_AIC.strip("\n").splitlines()[1:] + ROWS_AIV.strip("\n").splitlines()[:2]:
        line = "        " + line.strip() + "\n"
        assert line in broken, line
        broken = broken.replace(line, "")
    run_text(text)
    with pytest.raises(MachineError, match=r"GM race on tensor 'scratch'"):
        run_text(broken)


TWO = HEAD + '''        s3 = pl.store(c, [0, 0], scratch2)
        for i in pl.range(4):
            x = pl.load(s2, [i * 4, 0], [4, 16])
            y = pl.load(s3, [i * 4, 0], [4, 16])
            out = pl.store(pl.tile.add(x, y), [i * 4, 0], out)
        return out
'''


@pytest.mark.parametrize("backend_name", BACKENDS)
def test_several_fences_hoist_to_one_statement(backend_name: str):
    after = ssa_emk(TWO, backend_name)
    assert has_lines(printed(after, "k_aiv"), '''
    scratch__ssa_v0_gm_sync: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.tpop_from_aic(split=0)
    pl.system.tfree_to_aic(scratch__ssa_v0_gm_sync)
    scratch2__ssa_v0_gm_sync: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.tpop_from_aic(split=0)
    pl.system.tfree_to_aic(scratch2__ssa_v0_gm_sync)
    for i__idx_v0, (out__iter_v1,) in pl.range(4, init_values=(out__ssa_v0,)):
'''), printed(after, "k_aiv")
    assert len(calls_of(function(after, "k_aic"), "tile.tpush_to_aiv")) == 2


VECTOR_TO_CUBE = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.FP32], w: pl.Tensor[[16, 16], pl.FP32], scratch: pl.Out[pl.Tensor[[16, 16], pl.FP32]], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32]]:
        x = pl.load(a, [0, 0], [16, 16])
        s2 = pl.store(pl.tile.exp(x), [0, 0], scratch)
        a_m = pl.load(s2, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        w_m = pl.load(w, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        c = pl.tile.matmul(pl.move(a_m, target_memory=pl.Mem.Left), pl.move(w_m, target_memory=pl.Mem.Right))
        out = pl.store(c, [0, 0], out)
        return s2, out
'''


@pytest.mark.parametrize("backend_name", BACKENDS)
def test_a_vector_store_read_by_the_cube_is_not_fenced(backend_name: str):
    after = ssa_emk(VECTOR_TO_CUBE, backend_name, run=False)
    for side in ("k_aic", "k_aiv"):
        assert not [c for c in calls_of(function(after, side), "tile.tpush_to_aiv") +
                    calls_of(function(after, side), "tile.tpush_to_aic")], printed(after, side)

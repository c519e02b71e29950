"""ExpandMixedKernel's tfree placement (docs/passes/expand_mixed_kernel.md, frees): after the last use of the
popped tile through its copies, views and if merges; right before the trailing yield when the tile leaves its
block; a program's tfree of an alias re-pointed to the popped variable. The reference machine reports a read
of a released popped tile (pypto_core/interp/fifo.py, released tiles), so a misplaced tfree fails execution."""

from __future__ import annotations

import pytest

from pypto import ir
from pypto_core.interp import MachineError

from .emk_helpers import BACKENDS, has_lines, printed, run_text, ssa_emk

HEAD = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, qk: pl.Tile[[16, 16], pl.FP32, pl.Mem.Mat], qk2: pl.Tile[[16, 16], pl.FP32, pl.Mem.Mat], flag: pl.Scalar[pl.INT32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
'''

# v popped once; read only through an if's merge (h = v in both branches) after the if.
PHI_ALIAS = HEAD + '''        v = pl.move(qk, target_memory=pl.Mem.Vec)
        if pl.cast(flag, pl.INDEX) == 0:
            h = v
        else:
            h = v
        w = pl.tile.add(h, h)
        o = pl.store(w, [0, 0], out)
        return o
'''

PHI_ALIAS_AIV = '''
        v__ssa_v0: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec, pl.TileView(blayout=pl.TileLayout.col_major, slayout=pl.TileLayout.row_major)] = pl.tile.tpop_from_aic(split=0)
        if pl.cast(flag__ssa_v0, pl.INDEX) == 0:
            h__ssa_v0: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec, pl.TileView(blayout=pl.TileLayout.col_major, slayout=pl.TileLayout.row_major)] = v__ssa_v0
            h__phi_v2: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec, pl.TileView(blayout=pl.TileLayout.col_major, slayout=pl.TileLayout.row_major)] = pl.yield_(h__ssa_v0)
        else:
            h__ssa_v1: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec, pl.TileView(blayout=pl.TileLayout.col_major, slayout=pl.TileLayout.row_major)] = v__ssa_v0
            h__phi_v2: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec, pl.TileView(blayout=pl.TileLayout.col_major, slayout=pl.TileLayout.row_major)] = pl.yield_(h__ssa_v1)
        w__ssa_v0: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec, pl.TileView(blayout=pl.TileLayout.col_major, slayout=pl.TileLayout.row_major)] = pl.tile.add(h__phi_v2, h__phi_v2)
        pl.system.tfree_to_aic(v__ssa_v0)
        o__ssa_v0: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(w__ssa_v0, [0, 0], out__ssa_v0)
'''


@pytest.mark.parametrize("backend_name", BACKENDS)
def test_the_tfree_of_a_tile_read_through_an_if_merge_follows_that_read(backend_name: str):
    after = ssa_emk(PHI_ALIAS, backend_name)  # and runs: no read of a released tile
    assert has_lines(printed(after, "k_aiv"), PHI_ALIAS_AIV), printed(after, "k_aiv")


def test_the_machine_reports_a_read_of_a_released_popped_tile():
    text = ir.python_print(ssa_emk(PHI_ALIAS, "Ascend910B"), format=False)
    free = "        pl.system.tfree_to_aic(v__ssa_v0)\n"
    assert free in text
    early = text.replace(free, "").replace("        if pl.cast(flag__ssa_v0", free + "        if pl.cast(flag__ssa_v0")
    run_text(text)
    with pytest.raises(MachineError, match=r"'h__phi_v2' is read after the popped tile it holds was released by "
                                           r"system.tfree_to_aic"):
        run_text(early)


COPY_ALIAS = HEAD + '''        v = pl.move(qk, target_memory=pl.Mem.Vec)
        h = v
        w = pl.tile.exp(h)
        y = pl.tile.add(w, w)
        o = pl.store(y, [0, 0], out)
        return o
'''


@pytest.mark.parametrize("backend_name", BACKENDS)
def test_the_tfree_follows_the_last_read_of_a_copy_of_the_popped_tile(backend_name: str):
    after = ssa_emk(COPY_ALIAS, backend_name)
    assert has_lines(printed(after, "k_aiv"), '''
        w__ssa_v0: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec, pl.TileView(blayout=pl.TileLayout.col_major, slayout=pl.TileLayout.row_major)] = pl.tile.exp(h__ssa_v0)
        pl.system.tfree_to_aic(v__ssa_v0)
        y__ssa_v0: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec, pl.TileView(blayout=pl.TileLayout.col_major, slayout=pl.TileLayout.row_major)] = pl.tile.add(w__ssa_v0, w__ssa_v0)
''')


# Each branch pops (PyPTO's a2a3 example): the tile leaves the branch through its yield.
BOTH_POP = HEAD + '''        if pl.cast(flag, pl.INDEX) == 0:
            r = pl.move(qk, target_memory=pl.Mem.Vec)
        else:
            r = pl.move(qk2, target_memory=pl.Mem.Vec)
        o = pl.store(r, [0, 0], out)
        return o
'''


@pytest.mark.parametrize("backend_name", BACKENDS)
def test_a_tile_leaving_its_branch_is_freed_right_before_the_yield(backend_name: str):
    after = ssa_emk(BOTH_POP, backend_name, run=False)  # never an error
    aiv = printed(after, "k_aiv")
    assert has_lines(aiv, '''
        if pl.cast(flag__ssa_v0, pl.INDEX) == 0:
            r__ssa_v0: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec, pl.TileView(blayout=pl.TileLayout.col_major, slayout=pl.TileLayout.row_major)] = pl.tile.tpop_from_aic(split=0)
            pl.system.tfree_to_aic(r__ssa_v0)
            r__phi_v2: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec, pl.TileView(blayout=pl.TileLayout.col_major, slayout=pl.TileLayout.row_major)] = pl.yield_(r__ssa_v0)
        else:
            r__ssa_v1: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec, pl.TileView(blayout=pl.TileLayout.col_major, slayout=pl.TileLayout.row_major)] = pl.tile.tpop_from_aic(split=0)
            pl.system.tfree_to_aic(r__ssa_v1)
            r__phi_v2: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec, pl.TileView(blayout=pl.TileLayout.col_major, slayout=pl.TileLayout.row_major)] = pl.yield_(r__ssa_v1)
'''), aiv
    # The slot is released at the branch's end, so the store after the if reads a released tile: the machine
    # says so (docs/passes/expand_mixed_kernel.md, frees: compute a new tile in the branch to keep it).
    with pytest.raises(MachineError, match=r"'r__phi_v2' is read after the popped tile it holds was released"):
        run_text(ir.python_print(after, format=False))


# The same with a new tile computed in each branch: nothing reads the released slot.
BOTH_POP_COPIED = BOTH_POP.replace("r = pl.move(qk, target_memory=pl.Mem.Vec)",
                                   "r = pl.tile.adds(pl.move(qk, target_memory=pl.Mem.Vec), 0.0)").replace(
    "r = pl.move(qk2, target_memory=pl.Mem.Vec)", "r = pl.tile.adds(pl.move(qk2, target_memory=pl.Mem.Vec), 0.0)")


@pytest.mark.parametrize("backend_name", BACKENDS)
def test_a_tile_computed_from_the_pop_in_each_branch_runs(backend_name: str):
    after = ssa_emk(BOTH_POP_COPIED, backend_name)
    aiv = printed(after, "k_aiv")
    assert aiv.count("pl.system.tfree_to_aic(") == 2 and "leaves" not in aiv


LOOP_CARRY = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, qk: pl.Tile[[32, 32], pl.FP32, pl.Mem.Mat], out_0: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        acc = pl.tile.full([32, 32], dtype=pl.FP32, value=0.0)
        for i in pl.range(2):
            # flat, as the carry's tile.full is
            v = pl.move(qk, target_memory=pl.Mem.Vec, blayout=pl.TileLayout.row_major, slayout=pl.TileLayout.none_box)
            acc = v
        o = pl.store(acc, [0, 0], out_0)
        return o
'''


@pytest.mark.parametrize("backend_name", BACKENDS)
def test_a_popped_tile_carried_out_of_its_loop_is_freed_before_the_loop_yield(backend_name: str):
    after = ssa_emk(LOOP_CARRY, backend_name, run=False)  # was an error; now released at the body's end
    assert has_lines(printed(after, "k_aiv"), '''
            v__ssa_v0: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.tpop_from_aic(split=0)
            acc__ssa_v2: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = v__ssa_v0
            pl.system.tfree_to_aic(v__ssa_v0)
            acc__rv_v1: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.yield_(acc__ssa_v2)
''')


REPOINT = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.FP32], w: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        x = pl.load(a, [0, 0], [16, 16])
        pl.tpush_to_aic(x, split=0)
        got: pl.Tile[[16, 16], pl.FP32, pl.Mem.Mat] = pl.tpop_from_aiv(split=0)
        same = got
        g_l = pl.move(same, target_memory=pl.Mem.Left)
        w_m = pl.load(w, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        w_r = pl.move(w_m, target_memory=pl.Mem.Right)
        c = pl.tile.matmul(g_l, w_r)
        pl.tfree_to_aiv(same, id=0)
        o = pl.store(c, [0, 0], out)
        return o
'''


@pytest.mark.parametrize("backend_name", BACKENDS)
def test_a_tfree_of_an_alias_of_a_popped_tile_frees_the_popped_variable_with_its_kwargs(backend_name: str):
    after = ssa_emk(REPOINT, backend_name, run=False)  # the InCore kernel's own transfers run only once split
    run_text(ir.python_print(after, format=False))  # the Group runs: the free releases the slot `got` took
    aic = printed(after, "k_aic")
    assert "pl.system.tfree_to_aiv(got__ssa_v0, id=0)" in aic, aic
    assert "tfree_to_aiv(same" not in aic


def test_the_repointed_tfree_keeps_its_own_id_even_when_the_pop_has_another():
    src = REPOINT.replace("pl.tpop_from_aiv(split=0)", "pl.tpop_from_aiv(split=0, id=1)").replace(
        "pl.tpush_to_aic(x, split=0)", "pl.tpush_to_aic(x, split=0, id=1)")
    after = ssa_emk(src, "Ascend910B", run=False)  # structural: the pipe ids are the program's own business
    aic = printed(after, "k_aic")
    assert "pl.tile.tpop_from_aiv(split=0, id=1)" in aic and "pl.system.tfree_to_aiv(got__ssa_v0, id=0)" in aic, aic

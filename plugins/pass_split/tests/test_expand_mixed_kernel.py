"""ExpandMixedKernel (docs/passes/expand_mixed_kernel.md): the function classification, the two core bodies, transfers, tfree, pipe
setup and the Group -- each compared structurally or by the ops it produces, and run before and after on the
reference machine (the Group's outputs must equal the InCore kernel's)."""

from __future__ import annotations

import pytest

from pypto import ir
from tests.acceptance.appendix_golden import A5_EXPANDED

from .emk_helpers import BACKENDS, calls_of, emk, op_names
from .helpers import expect, function

A5_BEFORE = '''
@pl.program
class test_aiv_shard:
    @pl.function(type=pl.FunctionType.InCore)
    def split_aiv(qk: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec], out_0: pl.Out[pl.Tensor[[64, 128], pl.FP32]]) -> pl.Tensor[[64, 128], pl.FP32]:
        pl.func_attr({"split": pl.SplitMode.UP_DOWN, "split_aiv": True})
        half: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec] = pl.tile.aiv_shard(qk, split=1)
        y: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec] = pl.tile.add(half, half)
        out_store: pl.Tensor[[64, 128], pl.FP32] = pl.tile.store(y, [0, 0], out_0)
        return out_store
'''


@pytest.mark.unverified  # hand-built like PyPTO's test: its shard operand is a Vec tile (AivSplitLoweredValid (d))
def test_a_split_aiv_shard_kernel_is_expanded_character_for_character():
    after = emk(A5_BEFORE, "Ascend950", run=False)
    assert ir.python_print(after, format=False) == A5_EXPANDED.rstrip("\n")


# A mixed kernel without a split: V->C into Left and Right, C->V out of Acc.
UNSPLIT = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[32, 32], pl.FP32], b: pl.Tensor[[32, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        x = pl.load(a, [0, 0], [32, 32])
        y = pl.load(b, [0, 0], [32, 32])
        s = pl.tile.add(x, y)
        s_l = pl.move(s, target_memory=pl.Mem.Left)
        y_r = pl.move(y, target_memory=pl.Mem.Right)
        c = pl.tile.matmul(s_l, y_r)
        c_v = pl.move(c, target_memory=pl.Mem.Vec)
        e = pl.tile.exp(c_v)
        o = pl.store(e, [0, 0], out)
        return o

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[32, 32], pl.FP32], b: pl.Tensor[[32, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        r = self.k(a, b, out)
        return r
'''

UNSPLIT_AIC_910B = '''
    @pl.function(type=pl.FunctionType.AIC)
    def k_aic(self, a: pl.Tensor[[32, 32], pl.FP32], b: pl.Tensor[[32, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]):
        k_v2c_slot_buffer: pl.Scalar[pl.INT32] = pl.system.reserve_buffer(name='k_v2c_slot_buffer', size=8192, base=-1)
        k_c2v_slot_buffer_import: pl.Scalar[pl.INT32] = pl.system.import_peer_buffer(name='k_c2v_slot_buffer', peer_func='k_aiv')
        pl.system.aic_initialize_pipe(k_c2v_slot_buffer_import, k_v2c_slot_buffer, dir_mask=3, slot_size=4096, slot_num=2)
        s_l_mat: pl.Tile[[32, 32], pl.FP32, pl.Mem.Mat] = pl.tile.tpop_from_aiv(split=0)
        s_l: pl.Tile[[32, 32], pl.FP32, pl.Mem.Left] = pl.tile.move(s_l_mat, target_memory=pl.Mem.Left, blayout=pl.TileLayout.col_major, slayout=pl.TileLayout.row_major)
        pl.system.tfree_to_aiv(s_l_mat)
        y_r_mat: pl.Tile[[32, 32], pl.FP32, pl.Mem.Mat] = pl.tile.tpop_from_aiv(split=0)
        y_r: pl.Tile[[32, 32], pl.FP32, pl.Mem.Right] = pl.tile.move(y_r_mat, target_memory=pl.Mem.Right, blayout=pl.TileLayout.row_major, slayout=pl.TileLayout.col_major)
        pl.system.tfree_to_aiv(y_r_mat)
        c: pl.Tile[[32, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(s_l, y_r)
        pl.tile.tpush_to_aiv(c, split=0)
'''

UNSPLIT_AIV_910B = '''
    @pl.function(type=pl.FunctionType.AIV)
    def k_aiv(self, a: pl.Tensor[[32, 32], pl.FP32], b: pl.Tensor[[32, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        pl.func_attr({"dual_aiv_dispatch": True})
        k_v2c_slot_buffer_import: pl.Scalar[pl.INT32] = pl.system.import_peer_buffer(name='k_v2c_slot_buffer', peer_func='k_aic')
        k_c2v_slot_buffer: pl.Scalar[pl.INT32] = pl.system.reserve_buffer(name='k_c2v_slot_buffer', size=8192, base=-1)
        pl.system.aiv_initialize_pipe(k_c2v_slot_buffer, k_v2c_slot_buffer_import, dir_mask=3, slot_size=4096, slot_num=2)
        x: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [32, 32])
        y: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.load(b, [0, 0], [32, 32])
        s: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.add(x, y)
        pl.tile.tpush_to_aic(s, split=0)
        pl.tile.tpush_to_aic(y, split=0)
        c_v: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec, pl.TileView(blayout=pl.TileLayout.col_major, slayout=pl.TileLayout.row_major)] = pl.tile.tpop_from_aic(split=0)
        e: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec, pl.TileView(blayout=pl.TileLayout.col_major, slayout=pl.TileLayout.row_major)] = pl.tile.exp(c_v)
        pl.system.tfree_to_aic(c_v)
        o: pl.Tensor[[32, 32], pl.FP32] = pl.store(e, [0, 0], out)
        return o
'''

UNSPLIT_GROUP = '''
    @pl.function(type=pl.FunctionType.Group)
    def k(self, a: pl.Tensor[[32, 32], pl.FP32], b: pl.Tensor[[32, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        self.k_aic(a, b, out)
        self.k_aiv(a, b, out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[32, 32], pl.FP32], b: pl.Tensor[[32, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        r = self.k(a, b, out)
        return r
'''


def test_unsplit_mixed_kernel_on_910b_becomes_aic_aiv_and_group():
    after = emk(UNSPLIT, "Ascend910B")
    expect(after, "@pl.program\nclass P:" + UNSPLIT_AIC_910B + UNSPLIT_AIV_910B + UNSPLIT_GROUP)


def test_unsplit_mixed_kernel_on_950_has_no_dual_dispatch_and_nz_adapters_before_each_v2c_push():
    after = emk(UNSPLIT, "Ascend950")
    aiv = function(after, "k_aiv")
    assert "dual_aiv_dispatch" not in aiv.attrs
    pushes = calls_of(aiv, "tile.tpush_to_aic")
    assert [p.args[0].name_hint for p in pushes] == ["s_nz", "y_nz"]
    for p in pushes:
        view = p.args[0].type.effective_view()
        assert (view.blayout, view.slayout) == (ir.TileLayout.col_major, ir.TileLayout.row_major)
    assert op_names(function(after, "k_aic")) == op_names(function(emk(UNSPLIT, "Ascend910B"), "k_aic"))


def test_the_fractal_adapter_is_not_added_to_a_tile_already_nz():
    src = UNSPLIT.replace("s_l = pl.move(s, target_memory=pl.Mem.Left)",
                          "s_nz = pl.move(s, target_memory=pl.Mem.Vec, blayout=pl.TileLayout.col_major, "
                          "slayout=pl.TileLayout.row_major)\n        s_l = pl.move(s_nz, target_memory=pl.Mem.Left)")
    aiv = function(emk(src, "Ascend950"), "k_aiv")
    assert [p.args[0].name_hint for p in calls_of(aiv, "tile.tpush_to_aic")] == ["s_nz", "y_nz"]
    assert len(calls_of(aiv, "tile.move")) == 2  # the program's own NZ move and y's adapter


@pytest.mark.parametrize("backend_name", BACKENDS)
def test_the_orchestration_keeps_calling_the_kernel_by_name(backend_name: str):
    after = emk(UNSPLIT, backend_name)
    assert function(after, "k").func_type is ir.FunctionType.Group
    assert [f.name for f in after.functions.values()] == ["k", "k_aic", "k_aiv", "main"]

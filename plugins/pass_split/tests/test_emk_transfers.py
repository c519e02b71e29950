"""ExpandMixedKernel's V->C transfers and pipe setup (docs/passes/expand_mixed_kernel.md, transfers and pipe
setup): the AIC always pops into Mat and moves to the destination space with its layouts, the tfree right after
that move; on Ascend950 the AIV pushes an NZ copy; the setup writes V2C's buffer statement before C2V's."""

from __future__ import annotations

import pytest

from .emk_helpers import BACKENDS, calls_of, has_lines, printed, ssa_emk
from .helpers import function

V2C = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.BF16], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        y = pl.load(a, [0, 0], [16, 16])
        y_l = pl.move(y, target_memory=pl.Mem.Left)
        y_r = pl.move(y, target_memory=pl.Mem.Right)
        c = pl.tile.matmul(y_l, y_r)
        c_v = pl.move(c, target_memory=pl.Mem.Vec)
        out = pl.store(c_v, [0, 0], out)
        return out
'''

V2C_AIC = '''
    y_l__ssa_v0_mat: pl.Tile[[16, 16], pl.BF16, pl.Mem.Mat] = pl.tile.tpop_from_aiv(split=0)
    y_l__ssa_v0: pl.Tile[[16, 16], pl.BF16, pl.Mem.Left] = pl.tile.move(y_l__ssa_v0_mat, target_memory=pl.Mem.Left, blayout=pl.TileLayout.col_major, slayout=pl.TileLayout.row_major)
    pl.system.tfree_to_aiv(y_l__ssa_v0_mat)
    y_r__ssa_v0_mat: pl.Tile[[16, 16], pl.BF16, pl.Mem.Mat] = pl.tile.tpop_from_aiv(split=0)
    y_r__ssa_v0: pl.Tile[[16, 16], pl.BF16, pl.Mem.Right] = pl.tile.move(y_r__ssa_v0_mat, target_memory=pl.Mem.Right, blayout=pl.TileLayout.row_major, slayout=pl.TileLayout.col_major)
    pl.system.tfree_to_aiv(y_r__ssa_v0_mat)
    c__ssa_v0: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(y_l__ssa_v0, y_r__ssa_v0)
'''


@pytest.mark.parametrize("backend_name", BACKENDS)
def test_the_cube_pops_into_mat_then_moves_to_left_or_right_and_frees_after_the_move(backend_name: str):
    after = ssa_emk(V2C, backend_name)  # and runs: the move copies out of the slot before the tfree
    aic = printed(after, "k_aic")
    assert has_lines(aic, V2C_AIC), aic


def test_on_ascend950_the_vector_side_pushes_an_nz_copy_and_on_ascend910b_the_tile_itself():
    a5 = printed(ssa_emk(V2C, "Ascend950"), "k_aiv")
    assert has_lines(a5, '''
    y__ssa_v0_nz: pl.Tile[[16, 16], pl.BF16, pl.Mem.Vec, pl.TileView(blayout=pl.TileLayout.col_major, slayout=pl.TileLayout.row_major)] = pl.tile.move(y__ssa_v0, target_memory=pl.Mem.Vec, blayout=pl.TileLayout.col_major, slayout=pl.TileLayout.row_major)
    pl.tile.tpush_to_aic(y__ssa_v0_nz, split=0)
'''), a5
    a2a3 = printed(ssa_emk(V2C, "Ascend910B"), "k_aiv")
    assert "pl.tile.tpush_to_aic(y__ssa_v0, split=0)" in a2a3 and "_nz" not in a2a3


TO_MAT = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.FP32], w: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        x = pl.load(a, [0, 0], [16, 16])
        x_m = pl.move(pl.tile.exp(x), target_memory=pl.Mem.Mat)
        x_l = pl.move(x_m, target_memory=pl.Mem.Left)
        w_m = pl.load(w, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        w_r = pl.move(w_m, target_memory=pl.Mem.Right)
        c = pl.tile.matmul(x_l, w_r)
        out = pl.store(c, [0, 0], out)
        return out
'''


@pytest.mark.parametrize("backend_name", BACKENDS)
def test_a_mat_destination_is_popped_into_directly(backend_name: str):
    after = ssa_emk(TO_MAT, backend_name)
    aic = printed(after, "k_aic")
    assert has_lines(aic, '''
    x_m__ssa_v0: pl.Tile[[16, 16], pl.FP32, pl.Mem.Mat] = pl.tile.tpop_from_aiv(split=0)
    x_l__ssa_v0: pl.Tile[[16, 16], pl.FP32, pl.Mem.Left] = pl.tile.move(x_m__ssa_v0, target_memory=pl.Mem.Left)
    pl.system.tfree_to_aiv(x_m__ssa_v0)
'''), aic
    assert "_mat" not in aic


# -- pipe setup order ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("backend_name", BACKENDS)
def test_the_setup_writes_the_v2c_statement_before_the_c2v_one_on_both_sides(backend_name: str):
    after = ssa_emk(V2C, backend_name)
    assert has_lines(printed(after, "k_aic"), '''
    k_v2c_slot_buffer: pl.Scalar[pl.INT32] = pl.system.reserve_buffer(name='k_v2c_slot_buffer', size=2048, base=-1)
    k_c2v_slot_buffer_import: pl.Scalar[pl.INT32] = pl.system.import_peer_buffer(name='k_c2v_slot_buffer', peer_func='k_aiv')
    pl.system.aic_initialize_pipe(k_c2v_slot_buffer_import, k_v2c_slot_buffer, dir_mask=3, slot_size=1024, slot_num=2)
''')
    assert has_lines(printed(after, "k_aiv"), '''
    k_v2c_slot_buffer_import: pl.Scalar[pl.INT32] = pl.system.import_peer_buffer(name='k_v2c_slot_buffer', peer_func='k_aic')
    k_c2v_slot_buffer: pl.Scalar[pl.INT32] = pl.system.reserve_buffer(name='k_c2v_slot_buffer', size=2048, base=-1)
    pl.system.aiv_initialize_pipe(k_c2v_slot_buffer, k_v2c_slot_buffer_import, dir_mask=3, slot_size=1024, slot_num=2)
''')


@pytest.mark.parametrize("backend_name", BACKENDS)
def test_an_unused_direction_is_the_int32_zero_and_slot_size_the_largest_tile(backend_name: str):
    after = ssa_emk(TO_MAT, backend_name)
    (init,) = calls_of(function(after, "k_aic"), "system.aic_initialize_pipe")
    assert init.args[0].value == 0 and init.args[0].type.dtype.name == "INT32"
    assert init.kwargs["dir_mask"] == 2 and init.kwargs["slot_size"] == 16 * 16 * 4
    assert has_lines(printed(after, "k_aiv"), '''
    k_v2c_slot_buffer_import: pl.Scalar[pl.INT32] = pl.system.import_peer_buffer(name='k_v2c_slot_buffer', peer_func='k_aic')
    pl.system.aiv_initialize_pipe(pl.const(0, pl.INT32), k_v2c_slot_buffer_import, dir_mask=2, slot_size=1024, slot_num=2)
''')

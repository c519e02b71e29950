"""Hand-written V->C pushes are adapted on Ascend950 (docs/passes/expand_mixed_kernel.md, backends): every AIV
function the pass emits pushes NZ tiles only; a second run changes nothing; Ascend910B never adapts."""

from __future__ import annotations

import pytest

from pypto import ir, passes

from .emk_helpers import emk, has_lines, on_backend, printed

GROUP = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIC)
    def g_aic(self, a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
        buf: pl.Scalar[pl.INT32] = pl.system.reserve_buffer(name='g_v2c', size=2048, base=-1)
        pl.system.aic_initialize_pipe(pl.const(0, pl.INT32), buf, dir_mask=2, slot_size=1024, slot_num=2, id=1)
        m: pl.Tile[[16, 16], pl.FP32, pl.Mem.Mat] = pl.tpop_from_aiv(split=0, id=1)
        l: pl.Tile[[16, 16], pl.FP32, pl.Mem.Left] = pl.tile.move(m, target_memory=pl.Mem.Left)
        pl.system.tfree_to_aiv(m, id=1)
        c: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(l, pl.tile.move(pl.tile.load(a, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right))
        o: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(c, [0, 0], out)

    @pl.function(type=pl.FunctionType.AIV)
    def g_aiv(self, a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        imp: pl.Scalar[pl.INT32] = pl.system.import_peer_buffer(name='g_v2c', peer_func='g_aic')
        pl.system.aiv_initialize_pipe(pl.const(0, pl.INT32), imp, dir_mask=2, slot_size=1024, slot_num=2, id=1)
        x: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)
        pl.tpush_to_aic(x, split=0, id=1)
        return out

    @pl.function(type=pl.FunctionType.Group)
    def g(self, a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        self.g_aic(a, out)
        self.g_aiv(a, out)
        return out
'''

ADAPTED = '''
    x_nz: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec, pl.TileView(blayout=pl.TileLayout.col_major, slayout=pl.TileLayout.row_major)] = pl.tile.move(x, target_memory=pl.Mem.Vec, blayout=pl.TileLayout.col_major, slayout=pl.TileLayout.row_major)
    pl.tile.tpush_to_aic(x_nz, split=0, id=1)
'''


def test_a_hand_written_push_is_adapted_on_ascend950_and_a_second_run_changes_nothing():
    once = emk(GROUP, "Ascend950", run=False)
    from .emk_helpers import run_text

    run_text(ir.python_print(once, format=False), "g")  # the adapted group runs
    assert has_lines(printed(once, "g_aiv"), ADAPTED), printed(once, "g_aiv")
    with on_backend("Ascend950"):
        twice = passes.expand_mixed_kernel()(once)
    ir.assert_structural_equal(twice, once)


def test_ascend910b_never_adapts():
    after = emk(GROUP, "Ascend910B", run=False)
    assert "_nz" not in printed(after, "g_aiv")


PURE_VECTOR_PUSH = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        imp: pl.Scalar[pl.INT32] = pl.system.import_peer_buffer(name='k_v2c', peer_func='k_aic')
        pl.system.aiv_initialize_pipe(pl.const(0, pl.INT32), imp, dir_mask=2, slot_size=1024, slot_num=2)
        z: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.exp(pl.tile.load(a, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec))
        pl.tpush_to_aic(z, split=0)
        return out
'''


def test_an_incore_pure_vector_body_ending_in_a_push_is_adapted():
    after = emk(PURE_VECTOR_PUSH, "Ascend950", run=False)
    assert has_lines(printed(after, "k"), '''
    z_nz: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec, pl.TileView(blayout=pl.TileLayout.col_major, slayout=pl.TileLayout.row_major)] = pl.tile.move(z, target_memory=pl.Mem.Vec, blayout=pl.TileLayout.col_major, slayout=pl.TileLayout.row_major)
    pl.tile.tpush_to_aic(z_nz, split=0)
'''), printed(after, "k")
    assert "_nz" not in printed(emk(PURE_VECTOR_PUSH, "Ascend910B", run=False), "k")


@pytest.mark.parametrize("backend_name", ["Ascend950"])
def test_a_mixed_kernels_aiv_is_adapted_once(backend_name: str):
    from .emk_helpers import ssa_emk
    from .test_emk_transfers import V2C

    aiv = printed(ssa_emk(V2C, backend_name), "k_aiv")
    assert aiv.count("= pl.tile.move(") == 2 and "_nz_nz" not in aiv

"""A hand-written AIC / AIV function with an operand in a space its op does not accept (mutated test programs):
InferTileMemorySpace places InCore kernels only, so left alone the TileMemoryInferred verifier would report it
after the pass, blaming the pass. It is the program's mistake: a located ValueError naming the fix
(infer_tile_memory_space.py, reject_misplaced_core_functions)."""

from __future__ import annotations

import pytest

from pypto_plugins.pass_tile.tests.helpers import BACKENDS, rejected

SWAPPED_MATMUL_OPERANDS = """import pypto.language as pl

@pl.program
class Region:

    @pl.function(type=pl.FunctionType.AIC)
    def k_aic(a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
        buf: pl.Scalar[pl.INT32] = pl.system.import_peer_buffer(name='k_c2v_slot_buffer', peer_func='k_aiv')
        pl.system.aic_initialize_pipe(buf, pl.const(0, pl.INT32), dir_mask=1, slot_size=64, slot_num=2)
        am = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        acc = pl.matmul(pl.move(am, target_memory=pl.Mem.Right), pl.move(am, target_memory=pl.Mem.Left))
        out = pl.store(acc, [0, 0], out)
        token = pl.load(a, [0, 0], [1, 16], target_memory=pl.Mem.Mat)
        pl.tile.tpush_to_aiv(token, split=0)

    @pl.function(type=pl.FunctionType.AIV)
    def k_aiv(a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
        buf: pl.Scalar[pl.INT32] = pl.system.reserve_buffer(name='k_c2v_slot_buffer', size=128, base=-1)
        pl.system.aiv_initialize_pipe(buf, pl.const(0, pl.INT32), dir_mask=1, slot_size=64, slot_num=2)
        token: pl.Tile[[1, 16], pl.FP32, pl.Mem.Vec] = pl.tile.tpop_from_aic(split=0)
        pl.system.tfree_to_aic(token)
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            c = pl.load(out, [aiv_id * 8, 0], [8, 16])
            y = pl.store(c, [aiv_id * 8, 0], y)
        z = pl.load(a, [0, 0], [16, 16])
        out = pl.store(z, [0, 0], out)

    @pl.function(type=pl.FunctionType.Group)
    def k(a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
        self.k_aic(a, out, y)
        self.k_aiv(a, out, y)
"""


@pytest.mark.parametrize("swap, words", [
    (("target_memory=pl.Mem.Right), pl.move(am, target_memory=pl.Mem.Left)",), r"tile.matmul' input 0 .* requires Left but is in Right"),
    (("target_memory=pl.Mem.Right), pl.move(am, target_memory=pl.Mem.Left)",
      "target_memory=pl.Mem.Left), pl.move(am, target_memory=pl.Mem.Acc)"), r"tile.matmul' input 1 .* requires Right but is in Acc"),
])
@pytest.mark.parametrize("backend", BACKENDS)
def test_a_misplaced_operand_in_a_hand_written_aic_function_is_located(swap, words, backend):
    src = SWAPPED_MATMUL_OPERANDS
    if len(swap) == 2:
        src = src.replace(swap[0], swap[1])
    rejected(src, backend, rf"^InferTileMemorySpace: AIC function 'k_aic': Op '{words}.*move an operand into a space "
                           rf"its op accepts \(pl.move\)")


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_same_function_with_its_operands_in_place_compiles(backend):
    from pypto_plugins.pass_tile.tests.helpers import compiled

    compiled(SWAPPED_MATMUL_OPERANDS.replace("target_memory=pl.Mem.Right), pl.move(am, target_memory=pl.Mem.Left)",
                                            "target_memory=pl.Mem.Left), pl.move(am, target_memory=pl.Mem.Right)"),
             backend)

"""Lane 1's replay of a no-split dual-AIV kernel (SplitVectorKernel on Ascend910B, docs/passes/split_vector_kernel.md: lane 1 pushes
nothing) when the tile a cross-core push moves is a nested call (`tpush_to_aic(pl.tile.exp(c_v))`): the nested
call is bound to a name first, whose declared type holds nothing (a nested call's type is deduced again on
parsing, so only a statement can say so). Left nested, lane 1 would push a full box of its garbage into the
shared no-split slot and the machine would reject the two lanes' different data.
"""

from __future__ import annotations

import pytest

from pypto import ir, passes
from pypto_core.ir import stmt as S
from pypto_core.ir.types import TileType
from pypto_core.ir.utils import flatten_to_stmts
from pypto_core.testing import same_results

from .emk_helpers import on_backend
from .helpers import function, parse

# ExpandMixedKernel's Ascend910B output for a matmul -> exp -> matmul ping-pong, as written by hand.
GROUP = "import pypto.language as pl\n\n@pl.program\n" + """class P:
    @pl.function(type=pl.FunctionType.AIC, level=pl.Level.AIC, role=pl.Role.SubWorker)
    def k_aic(a: pl.Tensor[[32, 32], pl.FP32], b: pl.Tensor[[32, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]):
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
        e_l_mat: pl.Tile[[32, 32], pl.FP32, pl.Mem.Mat] = pl.tile.tpop_from_aiv(split=0)
        e_l: pl.Tile[[32, 32], pl.FP32, pl.Mem.Left] = pl.tile.move(e_l_mat, target_memory=pl.Mem.Left, blayout=pl.TileLayout.col_major, slayout=pl.TileLayout.row_major)
        pl.system.tfree_to_aiv(e_l_mat)
        d: pl.Tile[[32, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(e_l, y_r)
        o: pl.Tensor[[32, 32], pl.FP32] = pl.tile.store(d, [0, 0], out)
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def k_aiv(a: pl.Tensor[[32, 32], pl.FP32], b: pl.Tensor[[32, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        pl.func_attr({"dual_aiv_dispatch": True})
        k_c2v_slot_buffer: pl.Scalar[pl.INT32] = pl.system.reserve_buffer(name='k_c2v_slot_buffer', size=8192, base=-1)
        k_v2c_slot_buffer_import: pl.Scalar[pl.INT32] = pl.system.import_peer_buffer(name='k_v2c_slot_buffer', peer_func='k_aic')
        pl.system.aiv_initialize_pipe(k_c2v_slot_buffer, k_v2c_slot_buffer_import, dir_mask=3, slot_size=4096, slot_num=2)
        x: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [32, 32], [32, 32], target_memory=pl.Mem.Vec)
        y: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(b, [0, 0], [32, 32], [32, 32], target_memory=pl.Mem.Vec)
        pl.tile.tpush_to_aic(x, split=0)
        pl.tile.tpush_to_aic(y, split=0)
        c_v: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.tpop_from_aic(split=0)
        e: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.exp(c_v)
        pl.system.tfree_to_aic(c_v)
        pl.tile.tpush_to_aic(e, split=0)
        return out
    @pl.function(type=pl.FunctionType.Group, level=pl.Level.CORE_GROUP, role=pl.Role.SubWorker)
    def k(a: pl.Tensor[[32, 32], pl.FP32], b: pl.Tensor[[32, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        self.k_aic(a, b, out)
        self.k_aiv(a, b, out)
        return out
    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def main(self, a: pl.Tensor[[32, 32], pl.FP32], b: pl.Tensor[[32, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        r: pl.Tensor[[32, 32], pl.FP32] = self.k(a, b, out)
        return r
"""

PUSHED_EXP = ("""        e: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.exp(c_v)
        pl.system.tfree_to_aic(c_v)
        pl.tile.tpush_to_aic(e, split=0)""", """        pl.tile.tpush_to_aic(pl.tile.adds(pl.tile.exp(c_v), 1.0), split=0)
        pl.system.tfree_to_aic(c_v)""")
PUSHED_LOAD = ("""        pl.tile.tpush_to_aic(x, split=0)""",
               """        pl.tile.tpush_to_aic(pl.tile.load(a, [0, 0], [32, 32], [32, 32], target_memory=pl.Mem.Vec), split=0)""")


def _lane1_pushes(program: ir.Program) -> list[S.Stmt]:
    aiv = function(program, "k_aiv")
    dispatch = next(s for s in flatten_to_stmts(aiv.body) if isinstance(s, S.IfStmt))
    return flatten_to_stmts(dispatch.else_body)


@pytest.mark.parametrize("edit", [PUSHED_EXP, PUSHED_LOAD], ids=["nested-op", "nested-load"])
def test_lane_1_pushes_an_empty_tile_when_the_push_operand_is_nested(edit):
    assert edit[0] in GROUP
    before = parse(GROUP.replace(edit[0], edit[1]))
    with on_backend("Ascend910B"):
        after = passes.split_vector_kernel()(before)
        text = ir.python_print(after)
        ir.assert_structural_equal(after, parse(text))
        same_results(before, after)  # left nested, the machine refused lane 1's full box of different data
    lane1 = _lane1_pushes(after)
    operands = [s for s in lane1 if isinstance(s, S.AssignStmt) and s.var.name_hint == "tpush_to_aic_operand"]
    assert len(operands) == 1, text
    t = operands[0].var.type
    assert isinstance(t, TileType) and [int(d.value) for d in t.tile_view.valid_shape] == [0, 0], text
    push = next(s for s in lane1 if isinstance(s, S.EvalStmt) and any(a is operands[0].var for a in s.expr.args))
    assert push.expr.op.name == "tile.tpush_to_aic"

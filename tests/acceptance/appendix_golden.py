"""Golden printer texts of PyPTO's worked examples (PyPTO's raw printer, format=False), copied verbatim."""

A1_OUTLINED = '''# pypto.program: Basic
import pypto.language as pl

@pl.program
class Basic:
    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)
    def main_incore_0(y__ssa_v0: pl.Tensor[[64], pl.FP32], x__ssa_v0: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        tile__ssa_v0: pl.Tile[[64], pl.FP32, pl.Mem.Vec] = pl.tile.load(y__ssa_v0, [0], [64], [64], target_memory=pl.Mem.Vec)
        tile_sq__ssa_v0: pl.Tile[[64], pl.FP32, pl.Mem.Vec] = pl.tile.mul(tile__ssa_v0, tile__ssa_v0)
        result_tile__ssa_v0: pl.Tile[[64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(tile_sq__ssa_v0, 1.0)
        result__ssa_v0: pl.Tensor[[64], pl.FP32] = pl.tile.store(result_tile__ssa_v0, [0], x__ssa_v0)
        x__store: pl.Tensor[[64], pl.FP32] = result__ssa_v0
        return x__ssa_v0
    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def main(self, x__ssa_v0: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        y__ssa_v0: pl.Tensor[[64], pl.FP32] = pl.tensor.adds(x__ssa_v0, 1.0)
        x__ssa_v1: pl.Tensor[[64], pl.FP32] = self.main_incore_0(y__ssa_v0, x__ssa_v0)
        z__ssa_v0: pl.Tensor[[64], pl.FP32] = pl.tensor.adds(x__ssa_v1, 2.0)
        return z__ssa_v0'''

A2_OUTLINED_HEAD = '''# pypto.program: Loop
import pypto.language as pl

@pl.program
class Loop:
    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)
    def k_incore_0(a__ssa_v0: pl.Tensor[[256, 128], pl.FP32], i__idx_v0: pl.Scalar[pl.INDEX], out__ssa_v0: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
        t__ssa_v0: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(a__ssa_v0, [i__idx_v0 * 64, 0], [64, 128], [64, 128], target_memory=pl.Mem.Vec)
        out__store: pl.Tensor[[256, 128], pl.FP32] = pl.tile.store(pl.tile.muls(t__ssa_v0, 2.0), [i__idx_v0 * 64, 0], out__ssa_v0)
        return out__ssa_v0
    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def k(self, a__ssa_v0: pl.Tensor[[256, 128], pl.FP32], out__ssa_v0: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
        for i__idx_v0 in pl.range(4):
            out__ssa_v1: pl.Tensor[[256, 128], pl.FP32] = self.k_incore_0(a__ssa_v0, i__idx_v0, out__ssa_v0)
        return out__ssa_v1'''

A3_AS_PARSED = '''# pypto.program: Region
import pypto.language as pl

@pl.program
class Region:
    @pl.function
    def main(self, a: pl.Tensor[[128, 64], pl.FP32], out: pl.Out[pl.Tensor[[128, 64], pl.FP32]]) -> pl.Tensor[[128, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.cross_core_slot(slot_num=4)], name_hint="half_exp"):
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                base: pl.Scalar[pl.INDEX] = aiv_id * 64
                t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [base, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)
                out: pl.Tensor[[128, 64], pl.FP32] = pl.tile.store(pl.tile.exp(t), [base, 0], out)
        return out'''

A3_OUTLINED = '''# pypto.program: Region
import pypto.language as pl

@pl.program
class Region:
    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)
    def half_exp(a__ssa_v0: pl.Tensor[[128, 64], pl.FP32], out__ssa_v0: pl.Out[pl.Tensor[[128, 64], pl.FP32]]) -> pl.Tensor[[128, 64], pl.FP32]:
        pl.func_attr({"slot_num": 4, "split_aiv": True, "split": pl.SplitMode.UP_DOWN})
        for aiv_id__ssa_v0 in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            base__ssa_v0: pl.Scalar[pl.INDEX] = aiv_id__ssa_v0 * 64
            t__ssa_v0: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a__ssa_v0, [base__ssa_v0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)
            out__ssa_v1: pl.Tensor[[128, 64], pl.FP32] = pl.tile.store(pl.tile.exp(t__ssa_v0), [base__ssa_v0, 0], out__ssa_v0)
            out__store: pl.Tensor[[128, 64], pl.FP32] = out__ssa_v1
        return out__ssa_v0
    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def main(self, a__ssa_v0: pl.Tensor[[128, 64], pl.FP32], out__ssa_v0: pl.Out[pl.Tensor[[128, 64], pl.FP32]]) -> pl.Tensor[[128, 64], pl.FP32]:
        out__ssa_v2: pl.Tensor[[128, 64], pl.FP32] = self.half_exp(a__ssa_v0, out__ssa_v0)
        return out__ssa_v2'''

A4_BEFORE = '''# pypto.program: Before
import pypto.language as pl

@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)
    def split_auto(qk: pl.Tile[[128, 128], pl.FP32, pl.Mem.Mat, pl.TileView(valid_shape=[127, 128])], out_0: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        pl.func_attr({"split": pl.SplitMode.UP_DOWN})
        popped: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[127, 128], blayout=pl.TileLayout.col_major, slayout=pl.TileLayout.row_major)] = pl.tile.move(qk, target_memory=pl.Mem.Vec)
        y: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[127, 128], blayout=pl.TileLayout.col_major, slayout=pl.TileLayout.row_major)] = pl.tile.add(popped, popped)
        out_store: pl.Tensor[[128, 128], pl.FP32] = pl.tile.store(y, [0, 0], out_0)
        return out_store'''

A4_AFTER = '''# pypto.program: Before
import pypto.language as pl

@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)
    def split_auto(qk: pl.Tile[[128, 128], pl.FP32, pl.Mem.Mat, pl.TileView(valid_shape=[127, 128])], out_0: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        pl.func_attr({"split": pl.SplitMode.UP_DOWN, "split_aiv": True})
        subblock_idx: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        popped: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[pl.min(pl.max(pl.const(127, pl.INDEX), subblock_idx * pl.const(64, pl.INDEX)) - subblock_idx * pl.const(64, pl.INDEX), pl.const(64, pl.INDEX)), 128])] = pl.tile.aiv_shard(qk, split=1)
        y: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[pl.min(pl.max(pl.const(127, pl.INDEX), subblock_idx * pl.const(64, pl.INDEX)) - subblock_idx * pl.const(64, pl.INDEX), pl.const(64, pl.INDEX)), 128], blayout=pl.TileLayout.col_major, slayout=pl.TileLayout.row_major)] = pl.tile.add(popped, popped)
        out_store: pl.Tensor[[128, 128], pl.FP32] = pl.tile.store(y, [0 + subblock_idx * 64, 0], out_0)
        return out_store'''

A5_EXPANDED = '''# pypto.program: test_aiv_shard
import pypto.language as pl

@pl.program
class test_aiv_shard:
    @pl.function(type=pl.FunctionType.AIC, level=pl.Level.AIC, role=pl.Role.SubWorker)
    def split_aiv_aic(qk: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec], out_0: pl.Out[pl.Tensor[[64, 128], pl.FP32]]):
        pl.func_attr({"split": pl.SplitMode.UP_DOWN, "split_aiv": True})
        split_aiv_c2v_slot_buffer_import: pl.Scalar[pl.INT32] = pl.system.import_peer_buffer(name='split_aiv_c2v_slot_buffer', peer_func='split_aiv_aiv')
        pl.system.aic_initialize_pipe(split_aiv_c2v_slot_buffer_import, pl.const(0, pl.INT32), dir_mask=1, slot_size=65536, slot_num=2)
        pl.tile.tpush_to_aiv(qk, split=1)
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def split_aiv_aiv(qk: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec], out_0: pl.Out[pl.Tensor[[64, 128], pl.FP32]]) -> pl.Tensor[[64, 128], pl.FP32]:
        pl.func_attr({"split": pl.SplitMode.UP_DOWN, "split_aiv": True})
        split_aiv_c2v_slot_buffer: pl.Scalar[pl.INT32] = pl.system.reserve_buffer(name='split_aiv_c2v_slot_buffer', size=131072, base=-1)
        pl.system.aiv_initialize_pipe(split_aiv_c2v_slot_buffer, pl.const(0, pl.INT32), dir_mask=1, slot_size=65536, slot_num=2)
        half: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec] = pl.tile.tpop_from_aic(split=1)
        y: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec] = pl.tile.add(half, half)
        pl.system.tfree_to_aic(half)
        out_store: pl.Tensor[[64, 128], pl.FP32] = pl.tile.store(y, [0, 0], out_0)
        return out_store
    @pl.function(type=pl.FunctionType.Group, level=pl.Level.CORE_GROUP, role=pl.Role.SubWorker)
    def split_aiv(qk: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec], out_0: pl.Out[pl.Tensor[[64, 128], pl.FP32]]) -> pl.Tensor[[64, 128], pl.FP32]:
        pl.func_attr({"split": pl.SplitMode.UP_DOWN, "split_aiv": True})
        self.split_aiv_aic(qk, out_0)
        self.split_aiv_aiv(qk, out_0)
        return out_0'''

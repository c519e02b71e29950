# form: none — task-parallel tile region: each lane loads its own 32-row half and stores its row sums.
import pypto.language as pl


@pl.program
class NoneTileLaneHalvesRowsum:
    @pl.function
    def main(self, a: pl.Tensor[[64, 32], pl.FP32], out: pl.Out[pl.Tensor[[64, 1], pl.FP32]]) -> pl.Tensor[[64, 1], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="none_rowsum"):
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.NONE):
                t = pl.load(a, [aiv_id * 32, 0], [32, 32])
                tmp = pl.tile.create([32, 32], dtype=pl.FP32, target_memory=pl.Mem.Vec)
                s = pl.tile.row_sum(t, tmp)
                out = pl.store(s, [aiv_id * 32, 0], out)
        return out

# form: per-lane — LEFT_RIGHT tile region written per lane: each lane loads its 32 columns, subtracts each column's max (a reduction across rows, not over the split axis) and stores them.
import pypto.language as pl


@pl.program
class LaneTileLrCols:
    @pl.function
    def main(self, a: pl.Tensor[[32, 64], pl.FP32], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="lane_cols"):
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.LEFT_RIGHT):
                t = pl.load(a, [0, aiv_id * 32], [32, 32])
                tmp = pl.tile.create([32, 32], dtype=pl.FP32, target_memory=pl.Mem.Vec)
                mx = pl.tile.col_max(t, tmp)
                y = pl.tile.col_expand_sub(t, mx)
                out = pl.store(y, [0, aiv_id * 32], out)
        return out

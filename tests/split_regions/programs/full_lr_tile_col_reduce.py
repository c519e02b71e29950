# form: full — full-width LEFT_RIGHT tile region: column max of a [64, 64] tile with a scratch tile.
import pypto.language as pl


@pl.program
class FullLrTileColReduce:
    @pl.function
    def main(self, x: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[1, 64], pl.FP32]]) -> pl.Tensor[[1, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="lr_colmax"):
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.LEFT_RIGHT):
                t = pl.load(x, [0, 0], [64, 64])
                tmp = pl.tile.create([64, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec)
                m = pl.tile.col_max(t, tmp)
                out = pl.store(m, [0, 0], out)
        return out

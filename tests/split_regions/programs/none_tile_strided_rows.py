# form: none — task-parallel tile region: each lane takes every other 16-row block (pl.range(aiv_id, 4, 2)).
import pypto.language as pl


@pl.program
class NoneTileStridedRows:
    @pl.function
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="none_rows"):
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.NONE):
                for i in pl.range(aiv_id, 4, 2):
                    t = pl.load(a, [i * 16, 0], [16, 64])
                    e = pl.tile.exp(t)
                    y = pl.tile.muls(e, 0.5)
                    out = pl.store(y, [i * 16, 0], out)
        return out

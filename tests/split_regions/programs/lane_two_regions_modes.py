# form: per-lane — two regions of different modes in one scope: per-lane UP_DOWN into out1, NONE-strided into out2.
import pypto.language as pl


@pl.program
class LaneTwoRegionsModes:
    @pl.function
    def main(self, a: pl.Tensor[[64, 32], pl.FP32], out1: pl.Out[pl.Tensor[[64, 32], pl.FP32]],
             out2: pl.Out[pl.Tensor[[64, 32], pl.FP32]]) -> tuple[pl.Tensor[[64, 32], pl.FP32], pl.Tensor[[64, 32], pl.FP32]]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="lane_two"):
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                t = pl.load(a, [aiv_id * 32, 0], [32, 32])
                out1 = pl.store(pl.tile.exp(t), [aiv_id * 32, 0], out1)
            for aiv_id2 in pl.split_aiv(2, mode=pl.SplitMode.NONE):
                for i in pl.range(aiv_id2, 4, 2):
                    u = pl.load(a, [i * 16, 0], [16, 32])
                    out2 = pl.store(pl.tile.muls(u, 2.0), [i * 16, 0], out2)
        return out1, out2

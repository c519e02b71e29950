# form: per-lane — LEFT_RIGHT tile region written per lane: each lane loads its 32 columns of a and b, a * b + b.
import pypto.language as pl


@pl.program
class LaneTileLrColsEw:
    @pl.function
    def main(self, a: pl.Tensor[[32, 64], pl.FP32], b: pl.Tensor[[32, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="lane_cols_ew"):
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.LEFT_RIGHT):
                t = pl.load(a, [0, aiv_id * 32], [32, 32])
                u = pl.load(b, [0, aiv_id * 32], [32, 32])
                y = pl.tile.add(pl.tile.mul(t, u), u)
                out = pl.store(y, [0, aiv_id * 32], out)
        return out

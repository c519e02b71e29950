# form: per-lane — UP_DOWN tile region written per lane: loads/stores addressed by aiv_id * 64.
import pypto.language as pl


@pl.program
class LaneTileUdRows:
    @pl.function
    def main(self, a: pl.Tensor[[128, 64], pl.FP32], b: pl.Tensor[[128, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[128, 64], pl.FP32]]) -> pl.Tensor[[128, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="lane_rows", optimizations=[pl.cross_core_slot(slot_num=4)]):
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                base = aiv_id * 64
                t = pl.load(a, [base, 0], [64, 64])
                u = pl.load(b, [base, 0], [64, 64])
                y = pl.tile.add(pl.tile.exp(t), u)
                out = pl.store(y, [base, 0], out)
        return out

# form: per-lane — a per-lane UP_DOWN tile region inside a pl.range loop: chunk c, lane rows c*32 + aiv_id*16.
import pypto.language as pl


@pl.program
class LaneTileInRangeLoop:
    @pl.function
    def main(self, a: pl.Tensor[[128, 32], pl.FP32], out: pl.Out[pl.Tensor[[128, 32], pl.FP32]]) -> pl.Tensor[[128, 32], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="lane_in_loop"):
            for c in pl.range(4):
                for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                    row = c * 32 + aiv_id * 16
                    t = pl.load(a, [row, 0], [16, 32])
                    out = pl.store(pl.tile.neg(t), [row, 0], out)
        return out

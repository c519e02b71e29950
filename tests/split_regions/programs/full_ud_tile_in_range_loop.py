# form: full — a full-width UP_DOWN tile region inside a pl.range loop over four 32-row chunks of a.
import pypto.language as pl


@pl.program
class FullUdTileInRangeLoop:
    @pl.function
    def main(self, a: pl.Tensor[[128, 32], pl.FP32], out: pl.Out[pl.Tensor[[128, 32], pl.FP32]]) -> pl.Tensor[[128, 32], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="ud_in_loop"):
            for c in pl.range(4):
                for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                    t = pl.load(a, [c * 32, 0], [32, 32])
                    y = pl.tile.muls(pl.tile.exp(t), 0.5)
                    out = pl.store(y, [c * 32, 0], out)
        return out

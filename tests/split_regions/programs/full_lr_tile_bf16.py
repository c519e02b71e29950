# form: full — full-width LEFT_RIGHT tile region on BF16 input: load BF16, cast to FP32, exp, store FP32.
import pypto.language as pl


@pl.program
class FullLrTileBf16:
    @pl.function
    def main(self, a: pl.Tensor[[32, 64], pl.BF16], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="lr_bf16"):
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.LEFT_RIGHT):
                t = pl.load(a, [0, 0], [32, 64])
                f = pl.tile.cast(t, pl.FP32)
                y = pl.tile.exp(f)
                out = pl.store(y, [0, 0], out)
        return out

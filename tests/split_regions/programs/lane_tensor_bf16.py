# form: per-lane — UP_DOWN tensor region on BF16: lane-addressed 16-row slices, cast, exp, cast back to BF16.
import pypto.language as pl


@pl.program
class LaneTensorBf16:
    @pl.function
    def main(self, a: pl.Tensor[[32, 64], pl.BF16], out: pl.Out[pl.Tensor[[32, 64], pl.BF16]]) -> pl.Tensor[[32, 64], pl.BF16]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="lane_bf16"):
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                x = pl.slice(a, [16, 64], [aiv_id * 16, 0])
                e = pl.exp(pl.cast(x, pl.FP32))
                out = pl.assemble(out, pl.cast(e, pl.BF16), [aiv_id * 16, 0])
        return out

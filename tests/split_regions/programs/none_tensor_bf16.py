# form: none — task-parallel tensor region on BF16 inputs: per lane 16-row slices cast to FP32, exp, cast back.
import pypto.language as pl


@pl.program
class NoneTensorBf16:
    @pl.function
    def main(self, a: pl.Tensor[[32, 64], pl.BF16], out: pl.Out[pl.Tensor[[32, 64], pl.BF16]]) -> pl.Tensor[[32, 64], pl.BF16]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="none_bf16"):
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.NONE):
                x = pl.slice(a, [16, 64], [aiv_id * 16, 0])
                x32 = pl.cast(x, pl.FP32)
                e = pl.exp(x32)
                r = pl.cast(e, pl.BF16)
                out = pl.assemble(out, r, [aiv_id * 16, 0])
        return out

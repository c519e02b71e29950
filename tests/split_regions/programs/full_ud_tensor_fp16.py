# form: full — full-width UP_DOWN tensor region on FP16 inputs: cast to FP32, a * b + a, cast back to FP16.
import pypto.language as pl


@pl.program
class FullUdTensorFp16:
    @pl.function
    def main(self, a: pl.Tensor[[32, 64], pl.FP16], b: pl.Tensor[[32, 64], pl.FP16],
             out: pl.Out[pl.Tensor[[32, 64], pl.FP16]]) -> pl.Tensor[[32, 64], pl.FP16]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="ud_fp16"):
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                a32 = pl.cast(a, pl.FP32)
                b32 = pl.cast(b, pl.FP32)
                y = pl.add(pl.mul(a32, b32), a32)
                r = pl.cast(y, pl.FP16)
                out = pl.assemble(out, r, [0, 0])
        return out

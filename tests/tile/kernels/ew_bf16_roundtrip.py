# BF16 inputs: cast to FP32, exp and add in FP32, cast back to a BF16 output.
import pypto.language as pl


@pl.program
class EwBf16Roundtrip:
    @pl.function
    def main(self, a: pl.Tensor[[16, 64], pl.BF16], b: pl.Tensor[[16, 64], pl.BF16],
             out: pl.Out[pl.Tensor[[16, 64], pl.BF16]]) -> pl.Tensor[[16, 64], pl.BF16]:
        with pl.at(level=pl.Level.CORE_GROUP):
            a32 = pl.cast(a, pl.FP32)
            b32 = pl.cast(b, pl.FP32)
            e = pl.exp(a32)
            s = pl.add(e, b32)
            r = pl.cast(s, pl.BF16)
            out = pl.assemble(out, r, [0, 0])
        return out

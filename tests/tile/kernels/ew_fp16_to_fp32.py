# FP16 inputs cast to FP32 for the arithmetic (pl.cast on tensors), FP32 output.
import pypto.language as pl


@pl.program
class EwFp16ToFp32:
    @pl.function
    def main(self, a: pl.Tensor[[32, 64], pl.FP16], b: pl.Tensor[[32, 64], pl.FP16],
             out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            a32 = pl.cast(a, pl.FP32)
            b32 = pl.cast(b, pl.FP32)
            s = pl.add(a32, b32)
            m = pl.mul(s, b32)
            out = pl.assemble(out, m, [0, 0])
        return out

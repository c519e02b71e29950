# FP16 operands with an FP32 result (out_dtype=pl.FP32), then an FP32 bias added element-wise.
import pypto.language as pl


@pl.program
class MmFp16Acc32:
    @pl.function
    def main(self, a: pl.Tensor[[32, 64], pl.FP16], b: pl.Tensor[[64, 32], pl.FP16], bias: pl.Tensor[[32, 32], pl.FP32],
             out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            c = pl.matmul(a, b, out_dtype=pl.FP32)
            y = pl.add(c, bias)
            out = pl.assemble(out, y, [0, 0])
        return out

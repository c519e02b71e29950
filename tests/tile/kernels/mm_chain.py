# Two chained matmuls: (a @ b) @ c, the first product feeding the left operand of the second.
import pypto.language as pl


@pl.program
class MmChain:
    @pl.function
    def main(self, a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[32, 64], pl.FP32], c: pl.Tensor[[64, 32], pl.FP32],
             out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            ab = pl.matmul(a, b)
            abc = pl.matmul(ab, c)
            out = pl.assemble(out, abc, [0, 0])
        return out

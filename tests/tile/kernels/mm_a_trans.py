# Transposed left operand: a is stored [K, M] = [64, 32] and multiplied with a_trans=True.
import pypto.language as pl


@pl.program
class MmATrans:
    @pl.function
    def main(self, a: pl.Tensor[[64, 32], pl.FP32], b: pl.Tensor[[64, 16], pl.FP32],
             out: pl.Out[pl.Tensor[[32, 16], pl.FP32]]) -> pl.Tensor[[32, 16], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            c = pl.matmul(a, b, a_trans=True)
            out = pl.assemble(out, c, [0, 0])
        return out

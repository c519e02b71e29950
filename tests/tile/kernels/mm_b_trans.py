# Transposed right operand (q @ k^T): b is stored [N, K] = [32, 64] and multiplied with b_trans=True.
import pypto.language as pl


@pl.program
class MmBTrans:
    @pl.function
    def main(self, q: pl.Tensor[[16, 64], pl.FP32], k: pl.Tensor[[32, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            s = pl.matmul(q, k, b_trans=True)
            out = pl.assemble(out, s, [0, 0])
        return out

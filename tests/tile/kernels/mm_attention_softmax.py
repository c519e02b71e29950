# Attention-like: scores = q @ k^T scaled, row softmax, then probabilities @ v (matmul -> vector -> matmul).
import pypto.language as pl


@pl.program
class MmAttentionSoftmax:
    @pl.function
    def main(self, q: pl.Tensor[[16, 32], pl.FP32], k: pl.Tensor[[64, 32], pl.FP32], v: pl.Tensor[[64, 32], pl.FP32],
             out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            s = pl.matmul(q, k, b_trans=True)
            s = pl.mul(s, 0.17677669)
            mx = pl.row_max(s)
            e = pl.exp(pl.row_expand_sub(s, mx))
            p = pl.row_expand_div(e, pl.row_sum(e))
            o = pl.matmul(p, v)
            out = pl.assemble(out, o, [0, 0])
        return out

# RMS norm: x * rsqrt(mean(x*x) + eps) per row, then scaled per column by gamma [1, 64] (col_expand_mul).
import pypto.language as pl


@pl.program
class RedRmsNorm:
    @pl.function
    def main(self, x: pl.Tensor[[32, 64], pl.FP32], gamma: pl.Tensor[[1, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            sq = pl.mul(x, x)
            ss = pl.row_sum(sq)
            mean = pl.mul(ss, 0.015625)
            rstd = pl.rsqrt(pl.add(mean, 1e-6))
            normed = pl.row_expand_mul(x, rstd)
            y = pl.col_expand_mul(normed, gamma)
            out = pl.assemble(out, y, [0, 0])
        return out

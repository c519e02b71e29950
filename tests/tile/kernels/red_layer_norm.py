# Layer-norm-like: subtract the row mean, scale by rsqrt of the row variance, col_expand_mul gamma, col_expand_add beta.
import pypto.language as pl


@pl.program
class RedLayerNorm:
    @pl.function
    def main(self, x: pl.Tensor[[16, 128], pl.FP32], gamma: pl.Tensor[[1, 128], pl.FP32],
             beta: pl.Tensor[[1, 128], pl.FP32], out: pl.Out[pl.Tensor[[16, 128], pl.FP32]]) -> pl.Tensor[[16, 128], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            mean = pl.mul(pl.row_sum(x), 0.0078125)
            xc = pl.row_expand_sub(x, mean)
            var = pl.mul(pl.row_sum(pl.mul(xc, xc)), 0.0078125)
            rstd = pl.rsqrt(pl.add(var, 1e-5))
            normed = pl.row_expand_mul(xc, rstd)
            scaled = pl.col_expand_mul(normed, gamma)
            y = pl.col_expand_add(scaled, beta)
            out = pl.assemble(out, y, [0, 0])
        return out

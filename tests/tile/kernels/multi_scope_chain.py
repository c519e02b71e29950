# Three scopes chained through values computed in them (matmul, softmax, scale); the last result is returned.
import pypto.language as pl


@pl.program
class MultiScopeChain:
    @pl.function
    def main(self, a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[32, 32], pl.FP32]) -> pl.Tensor[[16, 32], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            c = pl.matmul(a, b)
        with pl.at(level=pl.Level.CORE_GROUP):
            e = pl.exp(pl.row_expand_sub(c, pl.row_max(c)))
            p = pl.row_expand_div(e, pl.row_sum(e))
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="scale_rows"):
            y = pl.mul(p, 4.0)
        return y

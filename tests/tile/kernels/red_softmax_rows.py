# Row softmax: row_max, row_expand_sub, exp, row_sum, row_expand_div on [16, 64].
import pypto.language as pl


@pl.program
class RedSoftmaxRows:
    @pl.function
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            mx = pl.row_max(x)
            shifted = pl.row_expand_sub(x, mx)
            e = pl.exp(shifted)
            total = pl.row_sum(e)
            y = pl.row_expand_div(e, total)
            out = pl.assemble(out, y, [0, 0])
        return out

# Column sums of a [64, 32] tensor into a [1, 32] Out tensor.
import pypto.language as pl


@pl.program
class RedColSum:
    @pl.function
    def main(self, x: pl.Tensor[[64, 32], pl.FP32], out: pl.Out[pl.Tensor[[1, 32], pl.FP32]]) -> pl.Tensor[[1, 32], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            s = pl.col_sum(x)
            out = pl.assemble(out, s, [0, 0])
        return out

# Dynamic row count: M = pl.dynamic("M"), element-wise exp(a) * b on whole [M, 64] tensors.
import pypto.language as pl

M = pl.dynamic("M")


@pl.program
class DynRowsElementwise:
    @pl.function
    def main(self, a: pl.Tensor[[M, 64], pl.FP32], b: pl.Tensor[[M, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[M, 64], pl.FP32]]) -> pl.Tensor[[M, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            y = pl.mul(pl.exp(a), b)
            out = pl.assemble(out, y, [0, 0])
        return out

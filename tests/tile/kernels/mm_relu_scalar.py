# Matmul followed by relu with a scalar zero (pl.tensor.maximum with a scalar rhs) and a scale by 0.25.
import pypto.language as pl


@pl.program
class MmReluScalar:
    @pl.function
    def main(self, a: pl.Tensor[[16, 64], pl.FP32], b: pl.Tensor[[64, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            c = pl.matmul(a, b)
            r = pl.tensor.maximum(c, 0.0)
            y = pl.mul(r, 0.25)
            out = pl.assemble(out, y, [0, 0])
        return out

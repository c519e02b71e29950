# Matmul followed by an exp activation, result returned from the scope (no Out parameter).
import pypto.language as pl


@pl.program
class MmExp:
    @pl.function
    def main(self, a: pl.Tensor[[32, 32], pl.FP32], b: pl.Tensor[[32, 32], pl.FP32]) -> pl.Tensor[[32, 32], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            c = pl.matmul(a, b)
            y = pl.exp(pl.mul(c, 0.125))
        return y

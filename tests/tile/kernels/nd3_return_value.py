# 3-D [2, 16, 32] result computed in the scope and returned (no Out parameter): a * b + a.
import pypto.language as pl


@pl.program
class Nd3ReturnValue:
    @pl.function
    def main(self, a: pl.Tensor[[2, 16, 32], pl.FP32], b: pl.Tensor[[2, 16, 32], pl.FP32]) -> pl.Tensor[[2, 16, 32], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            y = pl.add(pl.mul(a, b), a)
        return y

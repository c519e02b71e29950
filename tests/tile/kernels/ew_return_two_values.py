# Returns two tensors computed in the scope (sum and product), no Out parameters at all.
import pypto.language as pl


@pl.program
class EwReturnTwoValues:
    @pl.function
    def main(self, a: pl.Tensor[[16, 32], pl.FP32],
             b: pl.Tensor[[16, 32], pl.FP32]) -> tuple[pl.Tensor[[16, 32], pl.FP32], pl.Tensor[[16, 32], pl.FP32]]:
        with pl.at(level=pl.Level.CORE_GROUP):
            s = pl.add(a, b)
            p = pl.mul(a, b)
        return s, p

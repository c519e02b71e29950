# No Out parameter: the scope computes exp(a) + b and the function returns it (the pass adds an output).
import pypto.language as pl


@pl.program
class EwReturnValue:
    @pl.function
    def main(self, a: pl.Tensor[[32, 32], pl.FP32], b: pl.Tensor[[32, 32], pl.FP32]) -> pl.Tensor[[32, 32], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            e = pl.exp(a)
            y = pl.add(e, b)
        return y

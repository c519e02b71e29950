# Row maxima of exp(x) returned as a [32, 1] tensor computed in the scope (no Out parameter).
import pypto.language as pl


@pl.program
class RedRowMaxReturn:
    @pl.function
    def main(self, x: pl.Tensor[[32, 64], pl.FP32]) -> pl.Tensor[[32, 1], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            e = pl.exp(x)
            m = pl.row_max(e)
        return m

# A scalar parameter as the trip count: n (1..8) row tiles of [16, 32] scaled by 2, the rest of out untouched.
import pypto.language as pl


@pl.program
class ScalarLoopCount:
    @pl.function
    def main(self, x: pl.Tensor[[128, 32], pl.FP32], n: pl.Scalar[pl.INDEX],
             out: pl.InOut[pl.Tensor[[128, 32], pl.FP32]]) -> pl.Tensor[[128, 32], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            for i in pl.range(n):
                t = pl.slice(x, [16, 32], [i * 16, 0])
                out = pl.assemble(out, pl.mul(t, 2.0), [i * 16, 0])
        return out

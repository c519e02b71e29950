# if/else on an INT32 scalar parameter inside the scope: exp(a) when flag > 4, else a * b; both assemble out.
import pypto.language as pl


@pl.program
class ScalarIfElse:
    @pl.function
    def main(self, a: pl.Tensor[[16, 64], pl.FP32], b: pl.Tensor[[16, 64], pl.FP32], flag: pl.Scalar[pl.INT32],
             out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            if flag > 4:
                y = pl.exp(a)
            else:
                y = pl.mul(a, b)
            out = pl.assemble(out, y, [0, 0])
        return out

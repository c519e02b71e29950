# pl.full creates a constant tensor inside the scope that is combined element-wise with a parameter.
import pypto.language as pl


@pl.program
class EwFullConstant:
    @pl.function
    def main(self, a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            c = pl.full([16, 64], dtype=pl.FP32, value=3.0)
            m = pl.mul(a, c)
            r = pl.sub(m, c)
            out = pl.assemble(out, r, [0, 0])
        return out

# INT32 element-wise: maximum(a + b, a * b) - b with an integer scalar (tensor.adds on INT32).
import pypto.language as pl


@pl.program
class EwInt32:
    @pl.function
    def main(self, a: pl.Tensor[[16, 64], pl.INT32], b: pl.Tensor[[16, 64], pl.INT32],
             out: pl.Out[pl.Tensor[[16, 64], pl.INT32]]) -> pl.Tensor[[16, 64], pl.INT32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            s = pl.add(a, b)
            p = pl.mul(a, b)
            m = pl.maximum(s, p)
            d = pl.sub(m, b)
            r = pl.add(d, 3)
            out = pl.assemble(out, r, [0, 0])
        return out

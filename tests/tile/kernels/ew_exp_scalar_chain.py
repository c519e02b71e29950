# Element-wise chain with scalar operands: exp(a - b) * 0.5 + 1.0 (tensor.adds / tensor.muls).
import pypto.language as pl


@pl.program
class EwExpScalarChain:
    @pl.function
    def main(self, a: pl.Tensor[[16, 128], pl.FP32], b: pl.Tensor[[16, 128], pl.FP32],
             out: pl.Out[pl.Tensor[[16, 128], pl.FP32]]) -> pl.Tensor[[16, 128], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            d = pl.sub(a, b)
            e = pl.exp(d)
            h = pl.mul(e, 0.5)
            r = pl.add(h, 1.0)
            out = pl.assemble(out, r, [0, 0])
        return out

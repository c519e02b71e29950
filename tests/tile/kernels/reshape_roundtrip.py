# pl.reshape [16, 64] -> [64, 16], element-wise work in the new shape, reshape back, assemble.
import pypto.language as pl


@pl.program
class ReshapeRoundtrip:
    @pl.function
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], b: pl.Tensor[[64, 16], pl.FP32],
             out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            r = pl.reshape(x, [64, 16])
            y = pl.add(r, b)
            back = pl.reshape(y, [16, 64])
            out = pl.assemble(out, back, [0, 0])
        return out

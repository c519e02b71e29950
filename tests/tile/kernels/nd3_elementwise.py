# 3-D tensors [2, 16, 64]: element-wise exp(a) + b assembled into a 3-D output.
import pypto.language as pl


@pl.program
class Nd3Elementwise:
    @pl.function
    def main(self, a: pl.Tensor[[2, 16, 64], pl.FP32], b: pl.Tensor[[2, 16, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[2, 16, 64], pl.FP32]]) -> pl.Tensor[[2, 16, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            y = pl.add(pl.exp(a), b)
            out = pl.assemble(out, y, [0, 0, 0])
        return out

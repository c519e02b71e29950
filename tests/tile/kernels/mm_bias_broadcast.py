# Matmul plus a [1, 64] bias broadcast over the rows with pl.add (tensor.add broadcasting).
import pypto.language as pl


@pl.program
class MmBiasBroadcast:
    @pl.function
    def main(self, a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[32, 64], pl.FP32], bias: pl.Tensor[[1, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            c = pl.matmul(a, b)
            y = pl.add(c, bias)
            out = pl.assemble(out, y, [0, 0])
        return out

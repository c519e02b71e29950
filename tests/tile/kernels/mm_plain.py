# Plain matmul [32, 64] x [64, 32] -> [32, 32] FP32, assembled into an Out tensor.
import pypto.language as pl


@pl.program
class MmPlain:
    @pl.function
    def main(self, a: pl.Tensor[[32, 64], pl.FP32], b: pl.Tensor[[64, 32], pl.FP32],
             out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            c = pl.matmul(a, b)
            out = pl.assemble(out, c, [0, 0])
        return out

# Element-wise chain: (a + b) * a - b on [32, 64] FP32, assembled into an Out tensor.
import pypto.language as pl


@pl.program
class EwAddMul:
    @pl.function
    def main(self, a: pl.Tensor[[32, 64], pl.FP32], b: pl.Tensor[[32, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            s = pl.add(a, b)
            p = pl.mul(s, a)
            d = pl.sub(p, b)
            out = pl.assemble(out, d, [0, 0])
        return out

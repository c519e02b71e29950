# Unary element-wise ops in one chain: neg, abs, sqrt, recip, tensor.maximum (relu by a scalar).
import pypto.language as pl


@pl.program
class EwUnaryMix:
    @pl.function
    def main(self, a: pl.Tensor[[32, 64], pl.FP32], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            n = pl.neg(a)
            r = pl.tensor.maximum(n, 0.0)
            m = pl.abs(a)
            s = pl.sqrt(pl.add(m, 1.0))
            q = pl.recip(s)
            y = pl.add(r, q)
            out = pl.assemble(out, y, [0, 0])
        return out

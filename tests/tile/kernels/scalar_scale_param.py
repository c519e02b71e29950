# FP32 scalar parameters: out = a * alpha + b * beta (tensor.muls with scalar Vars).
import pypto.language as pl


@pl.program
class ScalarScaleParam:
    @pl.function
    def main(self, a: pl.Tensor[[32, 32], pl.FP32], b: pl.Tensor[[32, 32], pl.FP32], alpha: pl.Scalar[pl.FP32],
             beta: pl.Scalar[pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            y = pl.add(pl.mul(a, alpha), pl.mul(b, beta))
            out = pl.assemble(out, y, [0, 0])
        return out

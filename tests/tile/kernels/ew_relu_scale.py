# Element-wise relu of a scaled tensor: maximum(a * 2.0, zeros) with a pl.full zero tensor, minus a.
# (pl.maximum(x, 0.0) on a tensor builds the unregistered op tensor.maximums, so the zero is a tensor.)
import pypto.language as pl


@pl.program
class EwReluScale:
    @pl.function
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            scaled = pl.mul(a, 2.0)
            zeros = pl.full([64, 64], dtype=pl.FP32, value=0.0)
            relu = pl.maximum(scaled, zeros)
            r = pl.sub(relu, a)
            out = pl.assemble(out, r, [0, 0])
        return out

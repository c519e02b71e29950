# pl.tensor.read of a parameter element gives a scalar that scales the tensor; pl.read picks an offset.
import pypto.language as pl


@pl.program
class ReadScalarScale:
    @pl.function
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], params: pl.Tensor[[1, 4], pl.FP32],
             out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            scale = pl.tensor.read(params, [0, 0])
            shift = pl.read(params, [0, 1])
            y = pl.add(pl.mul(x, scale), shift)
            out = pl.assemble(out, y, [0, 0])
        return out

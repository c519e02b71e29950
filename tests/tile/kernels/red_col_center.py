# Column centring: x minus its column mean (col_sum * 1/M, col_expand_sub), then a col_max of the result.
import pypto.language as pl


@pl.program
class RedColCenter:
    @pl.function
    def main(self, x: pl.Tensor[[32, 64], pl.FP32], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]],
             colmax: pl.Out[pl.Tensor[[1, 64], pl.FP32]]) -> tuple[pl.Tensor[[32, 64], pl.FP32], pl.Tensor[[1, 64], pl.FP32]]:
        with pl.at(level=pl.Level.CORE_GROUP):
            mean = pl.mul(pl.col_sum(x), 0.03125)
            centred = pl.col_expand_sub(x, mean)
            mx = pl.col_max(centred)
            out = pl.assemble(out, centred, [0, 0])
            colmax = pl.assemble(colmax, mx, [0, 0])
        return out, colmax

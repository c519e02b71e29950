# Dynamic row count: loop over M // 16 row tiles (M read with pl.tensor.dim), row softmax per tile.
import pypto.language as pl

M = pl.dynamic("M")


@pl.program
class DynRowsLoop:
    @pl.function
    def main(self, x: pl.Tensor[[M, 64], pl.FP32], out: pl.Out[pl.Tensor[[M, 64], pl.FP32]]) -> pl.Tensor[[M, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            rows = pl.tensor.dim(x, 0)
            for i in pl.range(rows // 16):
                t = pl.slice(x, [16, 64], [i * 16, 0])
                e = pl.exp(pl.row_expand_sub(t, pl.row_max(t)))
                y = pl.row_expand_div(e, pl.row_sum(e))
                out = pl.assemble(out, y, [i * 16, 0])
        return out

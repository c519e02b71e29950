# Row sums per 16-row block in a loop: each [16, 1] result assembled into a [64, 1] Out at [i * 16, 0].
import pypto.language as pl


@pl.program
class RedRowSumLoop:
    @pl.function
    def main(self, x: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 1], pl.FP32]]) -> pl.Tensor[[64, 1], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            for i in pl.range(4):
                rows = pl.slice(x, [16, 64], [i * 16, 0])
                s = pl.row_sum(rows)
                out = pl.assemble(out, s, [i * 16, 0])
        return out

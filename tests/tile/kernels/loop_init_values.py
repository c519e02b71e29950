# pl.range with init_values: two carries (running sum and running max of the row blocks) and pl.yield_.
import pypto.language as pl


@pl.program
class LoopInitValues:
    @pl.function
    def main(self, x: pl.Tensor[[64, 32], pl.FP32], out_sum: pl.Out[pl.Tensor[[16, 32], pl.FP32]],
             out_max: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> tuple[pl.Tensor[[16, 32], pl.FP32], pl.Tensor[[16, 32], pl.FP32]]:
        with pl.at(level=pl.Level.CORE_GROUP):
            first = pl.slice(x, [16, 32], [0, 0])
            for i, (s, m) in pl.range(1, 4, init_values=(first, first)):
                blk = pl.slice(x, [16, 32], [i * 16, 0])
                s2 = pl.add(s, blk)
                m2 = pl.maximum(m, blk)
                total, best = pl.yield_(s2, m2)
            out_sum = pl.assemble(out_sum, total, [0, 0])
            out_max = pl.assemble(out_max, best, [0, 0])
        return out_sum, out_max

# form: full — full-width UP_DOWN tensor region: row max and row sum of exp(x - rowmax) (a softmax denominator).
import pypto.language as pl


@pl.program
class FullUdTensorRowReduce:
    @pl.function
    def main(self, x: pl.Tensor[[64, 32], pl.FP32], out: pl.Out[pl.Tensor[[64, 1], pl.FP32]]) -> pl.Tensor[[64, 1], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="ud_rowred"):
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                mx = pl.row_max(x)
                shifted = pl.row_expand_sub(x, mx)
                e = pl.exp(shifted)
                s = pl.row_sum(e)
                out = pl.assemble(out, s, [0, 0])
        return out

# form: full — full-width LEFT_RIGHT tensor region: column sums of x * x into a [1, 64] output (columns halved).
import pypto.language as pl


@pl.program
class FullLrTensorColReduce:
    @pl.function
    def main(self, x: pl.Tensor[[32, 64], pl.FP32], out: pl.Out[pl.Tensor[[1, 64], pl.FP32]]) -> pl.Tensor[[1, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="lr_colred"):
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.LEFT_RIGHT):
                sq = pl.mul(x, x)
                s = pl.col_sum(sq)
                out = pl.assemble(out, s, [0, 0])
        return out

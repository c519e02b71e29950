# form: full — full-width LEFT_RIGHT tensor region: row_expand_mul of x by a [32, 1] scale (whole on each lane).
import pypto.language as pl


@pl.program
class FullLrTensorRowBroadcast:
    @pl.function
    def main(self, x: pl.Tensor[[32, 64], pl.FP32], w: pl.Tensor[[32, 1], pl.FP32],
             out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="lr_rowbc"):
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.LEFT_RIGHT):
                y = pl.row_expand_mul(x, w)
                z = pl.add(y, x)
                out = pl.assemble(out, z, [0, 0])
        return out

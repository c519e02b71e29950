# form: full — full-width LEFT_RIGHT tensor regions under if/else on a scalar parameter (exp or a * b).
import pypto.language as pl


@pl.program
class FullLrTensorUnderIf:
    @pl.function
    def main(self, a: pl.Tensor[[16, 64], pl.FP32], b: pl.Tensor[[16, 64], pl.FP32], flag: pl.Scalar[pl.INT32],
             out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="lr_if"):
            if flag > 4:
                for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.LEFT_RIGHT):
                    y = pl.exp(a)
                    out = pl.assemble(out, y, [0, 0])
            else:
                for aiv_id2 in pl.split_aiv(2, mode=pl.SplitMode.LEFT_RIGHT):
                    y2 = pl.mul(a, b)
                    out = pl.assemble(out, y2, [0, 0])
        return out

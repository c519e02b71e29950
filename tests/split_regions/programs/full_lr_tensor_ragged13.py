# form: full — full-width LEFT_RIGHT tensor region on a ragged 13-row tensor: a - b, abs (columns halved).
import pypto.language as pl


@pl.program
class FullLrTensorRagged13:
    @pl.function
    def main(self, a: pl.Tensor[[13, 64], pl.FP32], b: pl.Tensor[[13, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[13, 64], pl.FP32]]) -> pl.Tensor[[13, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="lr_ragged13"):
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.LEFT_RIGHT):
                d = pl.sub(a, b)
                y = pl.abs(d)
                out = pl.assemble(out, y, [0, 0])
        return out

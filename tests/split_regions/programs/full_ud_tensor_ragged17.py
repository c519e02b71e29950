# form: full — full-width UP_DOWN tensor region on a ragged 17-row tensor: exp(a) * 2 (lanes get 9 and 8 rows).
import pypto.language as pl


@pl.program
class FullUdTensorRagged17:
    @pl.function
    def main(self, a: pl.Tensor[[17, 32], pl.FP32], out: pl.Out[pl.Tensor[[17, 32], pl.FP32]]) -> pl.Tensor[[17, 32], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="ud_ragged17"):
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                e = pl.exp(a)
                y = pl.mul(e, 2.0)
                out = pl.assemble(out, y, [0, 0])
        return out

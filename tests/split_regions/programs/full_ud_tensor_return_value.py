# form: full — full-width UP_DOWN tensor region whose result is returned from the scope (no Out parameter).
import pypto.language as pl


@pl.program
class FullUdTensorReturnValue:
    @pl.function
    def main(self, a: pl.Tensor[[32, 32], pl.FP32], b: pl.Tensor[[32, 32], pl.FP32]) -> pl.Tensor[[32, 32], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="ud_ret"):
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                e = pl.exp(a)
                y = pl.add(e, b)
        return y

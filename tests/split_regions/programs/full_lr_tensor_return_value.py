# form: full — full-width LEFT_RIGHT tensor region returning two values from the scope (sigmoid and square).
import pypto.language as pl


@pl.program
class FullLrTensorReturnValue:
    @pl.function
    def main(self, a: pl.Tensor[[16, 64], pl.FP32]) -> tuple[pl.Tensor[[16, 64], pl.FP32], pl.Tensor[[16, 64], pl.FP32]]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="lr_ret"):
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.LEFT_RIGHT):
                s = pl.sigmoid(a)
                q = pl.square(a)
        return s, q

# form: full — two full-width UP_DOWN regions in one scope, the second consuming the first's exp(a) (same partition).
import pypto.language as pl


@pl.program
class FullUdTwoRegionsChained:
    @pl.function
    def main(self, a: pl.Tensor[[32, 64], pl.FP32], b: pl.Tensor[[32, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="ud_chained"):
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                y = pl.exp(a)
            for aiv_id2 in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                z = pl.add(y, b)
                out = pl.assemble(out, z, [0, 0])
        return out

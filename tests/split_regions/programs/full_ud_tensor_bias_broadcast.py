# form: full — full-width UP_DOWN tensor region: x + bias with a [1, 64] bias broadcast over the (halved) rows.
import pypto.language as pl


@pl.program
class FullUdTensorBiasBroadcast:
    @pl.function
    def main(self, x: pl.Tensor[[64, 64], pl.FP32], bias: pl.Tensor[[1, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="ud_bias"):
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                y = pl.add(x, bias)
                z = pl.exp(y)
                out = pl.assemble(out, z, [0, 0])
        return out

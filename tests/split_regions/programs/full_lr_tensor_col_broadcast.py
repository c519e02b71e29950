# form: full — full-width LEFT_RIGHT tensor region: x + bias with a [1, 64] bias (halved on columns with x).
import pypto.language as pl


@pl.program
class FullLrTensorColBroadcast:
    @pl.function
    def main(self, x: pl.Tensor[[32, 64], pl.FP32], bias: pl.Tensor[[1, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="lr_colbc"):
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.LEFT_RIGHT):
                y = pl.add(x, bias)
                out = pl.assemble(out, pl.relu(y), [0, 0])
        return out

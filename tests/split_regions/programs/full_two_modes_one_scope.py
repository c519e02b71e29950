# form: full — two full-width regions of different modes in one scope (UP_DOWN then LEFT_RIGHT), each its own output.
import pypto.language as pl


@pl.program
class FullTwoModesOneScope:
    @pl.function
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], out1: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
             out2: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> tuple[pl.Tensor[[64, 64], pl.FP32], pl.Tensor[[64, 64], pl.FP32]]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="two_modes"):
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                t = pl.load(a, [0, 0], [64, 64])
                out1 = pl.store(pl.tile.exp(t), [0, 0], out1)
            for aiv_id2 in pl.split_aiv(2, mode=pl.SplitMode.LEFT_RIGHT):
                u = pl.load(a, [0, 0], [64, 64])
                out2 = pl.store(pl.tile.muls(u, 3.0), [0, 0], out2)
        return out1, out2

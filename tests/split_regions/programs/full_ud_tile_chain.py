# form: full — full-width UP_DOWN tile region: an element-wise chain exp(a) * b + 1 over the whole [64, 64] tile.
import pypto.language as pl


@pl.program
class FullUdTileChain:
    @pl.function
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], b: pl.Tensor[[64, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="ud_chain"):
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                ta = pl.load(a, [0, 0], [64, 64])
                tb = pl.load(b, [0, 0], [64, 64])
                e = pl.tile.exp(ta)
                m = pl.tile.mul(e, tb)
                y = pl.tile.adds(m, 1.0)
                out = pl.store(y, [0, 0], out)
        return out

# form: full — full-width LEFT_RIGHT tile region: maximum(a, b) - a, relu, on a [32, 128] tile (columns halved).
import pypto.language as pl


@pl.program
class FullLrTileChain:
    @pl.function
    def main(self, a: pl.Tensor[[32, 128], pl.FP32], b: pl.Tensor[[32, 128], pl.FP32],
             out: pl.Out[pl.Tensor[[32, 128], pl.FP32]]) -> pl.Tensor[[32, 128], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="lr_chain"):
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.LEFT_RIGHT):
                ta = pl.load(a, [0, 0], [32, 128])
                tb = pl.load(b, [0, 0], [32, 128])
                m = pl.tile.maximum(ta, tb)
                d = pl.tile.sub(m, ta)
                y = pl.tile.relu(d)
                out = pl.store(y, [0, 0], out)
        return out

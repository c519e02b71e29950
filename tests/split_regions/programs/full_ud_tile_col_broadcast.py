# form: full — full-width UP_DOWN tile region: col_expand_mul by a [1, 32] tile and row_expand_add of a [64, 1] tile.
import pypto.language as pl


@pl.program
class FullUdTileColBroadcast:
    @pl.function
    def main(self, x: pl.Tensor[[64, 32], pl.FP32], v: pl.Tensor[[1, 32], pl.FP32], r: pl.Tensor[[64, 1], pl.FP32],
             out: pl.Out[pl.Tensor[[64, 32], pl.FP32]]) -> pl.Tensor[[64, 32], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="ud_colbc"):
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                t = pl.load(x, [0, 0], [64, 32])
                tv = pl.load(v, [0, 0], [1, 32])
                tr = pl.load(r, [0, 0], [64, 1])
                y = pl.tile.col_expand_mul(t, tv)
                z = pl.tile.row_expand_add(y, tr)
                out = pl.store(z, [0, 0], out)
        return out

# form: full — full-width UP_DOWN tile region on a ragged 13-row tensor: row sums of a [13, 32] tile.
import pypto.language as pl


@pl.program
class FullUdTileRagged13Rowsum:
    @pl.function
    def main(self, a: pl.Tensor[[13, 32], pl.FP32], out: pl.Out[pl.Tensor[[13, 1], pl.FP32]]) -> pl.Tensor[[13, 1], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="ud_ragged13"):
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                t = pl.load(a, [0, 0], [13, 32])
                tmp = pl.tile.create([13, 32], dtype=pl.FP32, target_memory=pl.Mem.Vec)
                s = pl.tile.row_sum(t, tmp)
                out = pl.store(s, [0, 0], out)
        return out

# form: per-lane — UP_DOWN per-lane tile region with a carried accumulator over lane-addressed 16-row blocks.
import pypto.language as pl


@pl.program
class LaneTileLoopAccumulator:
    @pl.function
    def main(self, x: pl.Tensor[[128, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="lane_acc"):
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                init = pl.tile.full([16, 32], dtype=pl.FP32, value=0.0)
                for i, (acc,) in pl.range(4, init_values=(init,)):
                    blk = pl.load(x, [i * 32 + aiv_id * 16, 0], [16, 32])
                    nxt = pl.tile.add(acc, blk)
                    acc_out = pl.yield_(nxt)
                out = pl.store(acc_out, [aiv_id * 16, 0], out)
        return out

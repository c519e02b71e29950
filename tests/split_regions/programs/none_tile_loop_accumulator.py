# form: none — task-parallel tile region with a carried accumulator: lane k sums blocks k, k+2, k+4, k+6 of x.
import pypto.language as pl


@pl.program
class NoneTileLoopAccumulator:
    @pl.function
    def main(self, x: pl.Tensor[[128, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="none_acc"):
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.NONE):
                init = pl.tile.full([16, 32], dtype=pl.FP32, value=0.0)
                for i, (acc,) in pl.range(aiv_id, 8, 2, init_values=(init,)):
                    blk = pl.load(x, [i * 16, 0], [16, 32])
                    nxt = pl.tile.add(acc, blk)
                    acc_out = pl.yield_(nxt)
                out = pl.store(acc_out, [aiv_id * 16, 0], out)
        return out

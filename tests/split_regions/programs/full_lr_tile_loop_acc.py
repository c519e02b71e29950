# form: full — full-width LEFT_RIGHT tile region: a pl.range loop with init_values accumulating 4 row blocks.
import pypto.language as pl


@pl.program
class FullLrTileLoopAcc:
    @pl.function
    def main(self, x: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="lr_loop_acc"):
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.LEFT_RIGHT):
                init = pl.tile.full([16, 64], dtype=pl.FP32, value=0.0)
                for i, (acc,) in pl.range(4, init_values=(init,)):
                    blk = pl.load(x, [i * 16, 0], [16, 64])
                    nxt = pl.tile.add(acc, pl.tile.muls(blk, 0.25))
                    acc_out = pl.yield_(nxt)
                out = pl.store(acc_out, [0, 0], out)
        return out

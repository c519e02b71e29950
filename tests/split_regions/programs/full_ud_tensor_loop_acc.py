# form: full — full-width UP_DOWN tensor region holding a loop with a carried accumulator over 4 column blocks.
import pypto.language as pl


@pl.program
class FullUdTensorLoopAcc:
    @pl.function
    def main(self, x: pl.Tensor[[64, 128], pl.FP32], out: pl.Out[pl.Tensor[[64, 32], pl.FP32]]) -> pl.Tensor[[64, 32], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="ud_loop_acc"):
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                acc = pl.full([64, 32], dtype=pl.FP32, value=0.0)
                for j in pl.range(4):
                    blk = pl.slice(x, [64, 32], [0, j * 32])
                    acc = pl.add(acc, pl.exp(blk))
                out = pl.assemble(out, acc, [0, 0])
        return out

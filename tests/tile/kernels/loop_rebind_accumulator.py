# Carried accumulator by rebinding: acc starts as pl.full zeros, adds each 16-row block of x (SSA builds the carry).
import pypto.language as pl


@pl.program
class LoopRebindAccumulator:
    @pl.function
    def main(self, x: pl.Tensor[[128, 32], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            acc = pl.full([16, 32], dtype=pl.FP32, value=0.0)
            for i in pl.range(8):
                blk = pl.slice(x, [16, 32], [i * 16, 0])
                acc = pl.add(acc, blk)
            out = pl.assemble(out, acc, [0, 0])
        return out

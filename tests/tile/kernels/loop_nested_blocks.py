# Nested loops over a 2 x 2 grid of [16, 32] blocks, each block exp'd and assembled at [i * 16, j * 32].
import pypto.language as pl


@pl.program
class LoopNestedBlocks:
    @pl.function
    def main(self, x: pl.Tensor[[32, 64], pl.FP32], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            for i in pl.range(2):
                for j in pl.range(2):
                    blk = pl.slice(x, [16, 32], [i * 16, j * 32])
                    y = pl.mul(pl.exp(blk), 0.5)
                    out = pl.assemble(out, y, [i * 16, j * 32])
        return out

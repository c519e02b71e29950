# 3-D tensors [2, 16, 64] processed per batch in a loop: slice [1, 16, 64] at [i, 0, 0], scale, assemble back.
import pypto.language as pl


@pl.program
class Nd3BatchLoop:
    @pl.function
    def main(self, a: pl.Tensor[[2, 16, 64], pl.FP32], out: pl.Out[pl.Tensor[[2, 16, 64], pl.FP32]]) -> pl.Tensor[[2, 16, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            for i in pl.range(2):
                blk = pl.slice(a, [1, 16, 64], [i, 0, 0])
                y = pl.sub(pl.mul(blk, blk), 1.0)
                out = pl.assemble(out, y, [i, 0, 0])
        return out

# The loop is outside the scope: one CORE_GROUP scope per iteration, each writing its 16-row block of out.
import pypto.language as pl


@pl.program
class LoopOuterScope:
    @pl.function
    def main(self, x: pl.Tensor[[64, 32], pl.FP32], y: pl.Tensor[[64, 32], pl.FP32],
             out: pl.Out[pl.Tensor[[64, 32], pl.FP32]]) -> pl.Tensor[[64, 32], pl.FP32]:
        for i in pl.range(4):
            with pl.at(level=pl.Level.CORE_GROUP):
                xs = pl.slice(x, [16, 32], [i * 16, 0])
                ys = pl.slice(y, [16, 32], [i * 16, 0])
                out = pl.assemble(out, pl.mul(xs, ys), [i * 16, 0])
        return out

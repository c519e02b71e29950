# Loop over 16-row tiles: slice, exp, add 1.0, assemble into the Out tensor at [i * 16, 0].
import pypto.language as pl


@pl.program
class LoopRowsExp:
    @pl.function
    def main(self, x: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            for i in pl.range(4):
                rows = pl.slice(x, [16, 64], [i * 16, 0])
                y = pl.add(pl.exp(rows), 1.0)
                out = pl.assemble(out, y, [i * 16, 0])
        return out

# Row broadcast: each row of x scaled by a [32, 1] parameter (row_expand_mul), then row_expand_add of its row max.
import pypto.language as pl


@pl.program
class RedRowBroadcastMul:
    @pl.function
    def main(self, x: pl.Tensor[[32, 32], pl.FP32], w: pl.Tensor[[32, 1], pl.FP32],
             out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            scaled = pl.row_expand_mul(x, w)
            mx = pl.row_max(scaled)
            y = pl.row_expand_add(scaled, mx)
            out = pl.assemble(out, y, [0, 0])
        return out

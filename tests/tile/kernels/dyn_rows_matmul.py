# Dynamic row count of the left operand: [M, 32] @ [32, 32] in 16-row tiles, bias added with pl.add.
import pypto.language as pl

M = pl.dynamic("M")


@pl.program
class DynRowsMatmul:
    @pl.function
    def main(self, a: pl.Tensor[[M, 32], pl.FP32], w: pl.Tensor[[32, 32], pl.FP32], bias: pl.Tensor[[1, 32], pl.FP32],
             out: pl.Out[pl.Tensor[[M, 32], pl.FP32]]) -> pl.Tensor[[M, 32], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            for i in pl.range(M // 16):
                t = pl.slice(a, [16, 32], [i * 16, 0])
                c = pl.add(pl.matmul(t, w), bias)
                out = pl.assemble(out, c, [i * 16, 0])
        return out

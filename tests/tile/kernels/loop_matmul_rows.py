# Loop over 16-row blocks of a: each block times b (matmul), plus bias, assembled at [i * 16, 0].
import pypto.language as pl


@pl.program
class LoopMatmulRows:
    @pl.function
    def main(self, a: pl.Tensor[[64, 32], pl.FP32], b: pl.Tensor[[32, 32], pl.FP32], bias: pl.Tensor[[1, 32], pl.FP32],
             out: pl.Out[pl.Tensor[[64, 32], pl.FP32]]) -> pl.Tensor[[64, 32], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            for i in pl.range(4):
                rows = pl.slice(a, [16, 32], [i * 16, 0])
                c = pl.matmul(rows, b)
                y = pl.col_expand_add(c, bias)
                out = pl.assemble(out, y, [i * 16, 0])
        return out

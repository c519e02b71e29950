# if/else on a scalar parameter choosing between a matmul and a transposed matmul, then a bias add.
import pypto.language as pl


@pl.program
class ScalarIfMatmul:
    @pl.function
    def main(self, a: pl.Tensor[[32, 32], pl.FP32], b: pl.Tensor[[32, 32], pl.FP32], bias: pl.Tensor[[1, 32], pl.FP32],
             mode: pl.Scalar[pl.INT32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            if mode < 3:
                c = pl.matmul(a, b)
            else:
                c = pl.matmul(a, b, b_trans=True)
            y = pl.col_expand_add(c, bias)
            out = pl.assemble(out, y, [0, 0])
        return out

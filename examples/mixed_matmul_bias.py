# a @ b + bias, split across the two AIV lanes: once by rows (UP_DOWN) and once by columns (LEFT_RIGHT).
# The default pipeline takes each scope to a Group running an AIC kernel (the matmul) and an AIV kernel
# (the bias add, half the tile per lane) connected by cross-core transfers:
#   pypto compile examples/mixed_matmul_bias.py
#   pypto run --verify check-run examples/mixed_matmul_bias.py              (Ascend910B)
#   pypto run --backend Ascend950 --verify check-run examples/mixed_matmul_bias.py
import pypto.language as pl


@pl.program
class MixedMatmulBias:
    @pl.function
    def main(self, a: pl.Tensor[[32, 64], pl.FP32], b: pl.Tensor[[64, 32], pl.FP32],
             bias: pl.Tensor[[1, 32], pl.FP32], rows: pl.Out[pl.Tensor[[32, 32], pl.FP32]],
             cols: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> tuple[pl.Tensor[[32, 32], pl.FP32], pl.Tensor[[32, 32], pl.FP32]]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="by_rows", optimizations=[pl.split(pl.SplitMode.UP_DOWN)]):
            rows = pl.assemble(rows, pl.add(pl.matmul(a, b), bias), [0, 0])
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="by_cols", optimizations=[pl.split(pl.SplitMode.LEFT_RIGHT)]):
            cols = pl.assemble(cols, pl.add(pl.matmul(a, b), bias), [0, 0])
        return rows, cols

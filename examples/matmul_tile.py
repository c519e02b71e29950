# A matmul with a bias and a relu, written with tensor ops. The `tile` preset lowers it to tile ops in
# memory spaces (loads into Mat, moves to Left / Right, the product in Acc, the epilogue in Vec):
#   pypto compile --pipeline tile examples/matmul_tile.py
#   pypto run --pipeline tile --verify check-run examples/matmul_tile.py
import pypto.language as pl


@pl.program
class MmBiasColExpand:
    @pl.function
    def main(self, a: pl.Tensor[[32, 64], pl.FP32], b: pl.Tensor[[64, 32], pl.FP32], bias: pl.Tensor[[1, 32], pl.FP32],
             out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            c = pl.matmul(a, b)
            y = pl.col_expand_add(c, bias)
            zeros = pl.full([32, 32], dtype=pl.FP32, value=0.0)
            r = pl.maximum(y, zeros)
            out = pl.assemble(out, r, [0, 0])
        return out

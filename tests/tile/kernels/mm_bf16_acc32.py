# BF16 operands accumulated in FP32 over two K blocks (matmul then matmul_acc), cast back to BF16.
import pypto.language as pl


@pl.program
class MmBf16Acc32:
    @pl.function
    def main(self, a: pl.Tensor[[16, 64], pl.BF16], b: pl.Tensor[[64, 32], pl.BF16],
             out: pl.Out[pl.Tensor[[16, 32], pl.BF16]]) -> pl.Tensor[[16, 32], pl.BF16]:
        with pl.at(level=pl.Level.CORE_GROUP):
            a0 = pl.slice(a, [16, 32], [0, 0])
            a1 = pl.slice(a, [16, 32], [0, 32])
            b0 = pl.slice(b, [32, 32], [0, 0])
            b1 = pl.slice(b, [32, 32], [32, 0])
            acc = pl.matmul(a0, b0, out_dtype=pl.FP32)
            acc = pl.matmul_acc(acc, a1, b1)
            r = pl.cast(acc, pl.BF16)
            out = pl.assemble(out, r, [0, 0])
        return out

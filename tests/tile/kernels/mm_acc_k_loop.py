# Split-K: matmul of the first K block, then matmul_acc over the remaining 3 K blocks (init_values carry).
import pypto.language as pl


@pl.program
class MmAccKLoop:
    @pl.function
    def main(self, a: pl.Tensor[[32, 128], pl.FP32], b: pl.Tensor[[128, 32], pl.FP32],
             out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            a0 = pl.slice(a, [32, 32], [0, 0])
            b0 = pl.slice(b, [32, 32], [0, 0])
            acc0 = pl.matmul(a0, b0)
            for k, (acc,) in pl.range(1, 4, init_values=(acc0,)):
                ak = pl.slice(a, [32, 32], [0, k * 32])
                bk = pl.slice(b, [32, 32], [k * 32, 0])
                nxt = pl.matmul_acc(acc, ak, bk)
                total = pl.yield_(nxt)
            out = pl.assemble(out, total, [0, 0])
        return out

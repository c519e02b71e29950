# pl.create_tensor scratch buffer filled by assembles in a loop, then read back whole and scaled into the output.
import pypto.language as pl


@pl.program
class CreateTensorScratch:
    @pl.function
    def main(self, x: pl.Tensor[[32, 64], pl.FP32], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            buf = pl.create_tensor([32, 64], dtype=pl.FP32)
            for i in pl.range(2):
                rows = pl.slice(x, [16, 64], [i * 16, 0])
                buf = pl.assemble(buf, pl.exp(rows), [i * 16, 0])
            y = pl.mul(buf, 3.0)
            out = pl.assemble(out, y, [0, 0])
        return out

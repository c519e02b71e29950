# Four static slices (quadrants of a [64, 64] tensor), each processed differently, assembled back in place.
import pypto.language as pl


@pl.program
class SliceQuadrants:
    @pl.function
    def main(self, x: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            q00 = pl.slice(x, [32, 32], [0, 0])
            q01 = pl.slice(x, [32, 32], [0, 32])
            q10 = pl.slice(x, [32, 32], [32, 0])
            q11 = pl.slice(x, [32, 32], [32, 32])
            out = pl.assemble(out, pl.exp(q00), [0, 0])
            out = pl.assemble(out, pl.add(q01, q10), [0, 32])
            out = pl.assemble(out, pl.mul(q10, 2.0), [32, 0])
            out = pl.assemble(out, pl.sub(q11, q00), [32, 32])
        return out

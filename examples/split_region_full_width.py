# A pl.split_aiv region holding full-width vector work: LowerAutoVectorSplit halves it by rows, each AIV
# lane loading, computing and storing its half (docs/passes/lower_auto_vector_split.md, the region path):
#   pypto compile --pipeline tile,lower_auto_vector_split examples/split_region_full_width.py
import pypto.language as pl


@pl.program
class FullWidthRegion:
    @pl.function
    def main(self, a: pl.Tensor[[128, 64], pl.FP32], b: pl.Tensor[[128, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[128, 64], pl.FP32]]) -> pl.Tensor[[128, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="scaled_sum"):
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                y = pl.add(pl.mul(a, 2.0), b)
                out = pl.assemble(out, pl.exp(y), [0, 0])
        return out

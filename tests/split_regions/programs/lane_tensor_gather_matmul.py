# form: per-lane — UP_DOWN region with lane-addressed tensor slices; pl.aic_gather(e) feeds a matmul after it.
import pypto.language as pl


@pl.program
class LaneTensorGatherMatmul:
    @pl.function
    def main(self, a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[32, 16], pl.FP32],
             out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="gather_mm"):
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                x = pl.slice(a, [8, 32], [aiv_id * 8, 0])
                e = pl.exp(x)
                full = pl.aic_gather(e)
            c = pl.matmul(full, b)
            out = pl.assemble(out, c, [0, 0])
        return out

# form: per-lane — a per-lane LEFT_RIGHT tensor region (slices at aiv_id * 32 columns) under `if n > 1`.
import pypto.language as pl


@pl.program
class LaneTensorUnderIf:
    @pl.function
    def main(self, a: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX],
             out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="lane_if"):
            if n > 1:
                for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.LEFT_RIGHT):
                    x = pl.slice(a, [16, 32], [0, aiv_id * 32])
                    y = pl.exp(x)
                    out = pl.assemble(out, y, [0, aiv_id * 32])
        return out

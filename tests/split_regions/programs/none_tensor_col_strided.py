# form: none — task-parallel tensor region striding 16-column blocks (lane k takes blocks k and k+2).
import pypto.language as pl


@pl.program
class NoneTensorColStrided:
    @pl.function
    def main(self, a: pl.Tensor[[32, 64], pl.FP32], b: pl.Tensor[[32, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="none_cols"):
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.NONE):
                for j in pl.range(aiv_id, 4, 2):
                    x = pl.slice(a, [32, 16], [0, j * 16])
                    w = pl.slice(b, [32, 16], [0, j * 16])
                    y = pl.maximum(x, w)
                    out = pl.assemble(out, y, [0, j * 16])
        return out

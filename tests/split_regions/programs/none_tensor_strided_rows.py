# form: none — task-parallel tensor region: lanes stride 16-row slices of a and b, add them, assemble into out.
import pypto.language as pl


@pl.program
class NoneTensorStridedRows:
    @pl.function
    def main(self, a: pl.Tensor[[64, 32], pl.FP32], b: pl.Tensor[[64, 32], pl.FP32],
             out: pl.Out[pl.Tensor[[64, 32], pl.FP32]]) -> pl.Tensor[[64, 32], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="none_tensor_rows"):
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.NONE):
                for i in pl.range(aiv_id, 4, 2):
                    x = pl.slice(a, [16, 32], [i * 16, 0])
                    w = pl.slice(b, [16, 32], [i * 16, 0])
                    s = pl.add(x, w)
                    out = pl.assemble(out, s, [i * 16, 0])
        return out

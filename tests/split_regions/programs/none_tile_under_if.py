# form: none — a task-parallel tile region under `if flag > 2` on a scalar parameter (else: a plain copy).
import pypto.language as pl


@pl.program
class NoneTileUnderIf:
    @pl.function
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], flag: pl.Scalar[pl.INT32],
             out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="none_if"):
            if flag > 2:
                for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.NONE):
                    for i in pl.range(aiv_id, 4, 2):
                        t = pl.load(a, [i * 16, 0], [16, 64])
                        out = pl.store(pl.tile.exp(t), [i * 16, 0], out)
            else:
                for aiv_id2 in pl.split_aiv(2, mode=pl.SplitMode.NONE):
                    u = pl.load(a, [aiv_id2 * 32, 0], [32, 64])
                    out = pl.store(pl.tile.muls(u, 3.0), [aiv_id2 * 32, 0], out)
        return out

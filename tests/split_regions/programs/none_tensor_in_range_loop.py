# form: none — a task-parallel tensor region inside a pl.range loop over 32-row chunks; lanes stride 16-row blocks.
import pypto.language as pl


@pl.program
class NoneTensorInRangeLoop:
    @pl.function
    def main(self, a: pl.Tensor[[128, 32], pl.FP32], out: pl.Out[pl.Tensor[[128, 32], pl.FP32]]) -> pl.Tensor[[128, 32], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="none_in_loop"):
            for c in pl.range(4):
                for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.NONE):
                    x = pl.slice(a, [16, 32], [c * 32 + aiv_id * 16, 0])
                    y = pl.mul(pl.exp(x), 2.0)
                    out = pl.assemble(out, y, [c * 32 + aiv_id * 16, 0])
        return out

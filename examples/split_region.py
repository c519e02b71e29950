# A named CORE_GROUP scope holding a `pl.split_aiv` region (docs/dsl.md, splitting vector work across the
# two AIV lanes): each AIV lane handles half of the rows; outlining stamps split_aiv + split on the kernel.
import pypto.language as pl


@pl.program
class Region:
    @pl.function
    def main(self, a: pl.Tensor[[128, 64], pl.FP32], out: pl.Out[pl.Tensor[[128, 64], pl.FP32]]) -> pl.Tensor[[128, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="half_exp", optimizations=[pl.cross_core_slot(slot_num=4)]):
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                base = aiv_id * 64
                t = pl.load(a, [base, 0], [64, 64])
                out = pl.store(pl.exp(t), [base, 0], out)
        return out

# A task-parallel pl.split_aiv region (mode NONE): both AIV lanes run the body and divide the row blocks
# between them with aiv_id; nothing is halved (docs/dsl.md, splitting vector work across the two AIV lanes):
#   pypto run --pipeline tile,lower_auto_vector_split --verify check-run examples/split_region_none.py
import pypto.language as pl


@pl.program
class TaskParallelRegion:
    @pl.function
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="blocks"):
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.NONE):
                for i in pl.range(aiv_id, 4, 2):
                    t = pl.load(a, [i * 16, 0], [16, 64])
                    out = pl.store(pl.exp(t), [i * 16, 0], out)
        return out

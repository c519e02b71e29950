# The three pl.split_aiv region forms (docs/dsl.md, splitting vector work across the two AIV lanes) in one
# program, through the default pipeline:
#   * full width (UP_DOWN): the body is written for the whole tile and halved per lane by the compiler;
#   * per lane (UP_DOWN): the body takes the cube's product with pl.aiv_shard, half a tile per lane;
#   * task parallel (NONE): both lanes run the body and split the row blocks between them by aiv_id.
#   pypto run --verify check-run examples/split_regions.py
#   pypto run --backend Ascend950 --verify check-run examples/split_regions.py
import pypto.language as pl


@pl.program
class SplitRegions:
    @pl.function
    def main(self, a: pl.Tensor[[32, 64], pl.FP32], w: pl.Tensor[[64, 64], pl.FP32],
             full: pl.Out[pl.Tensor[[32, 64], pl.FP32]], lanes: pl.Out[pl.Tensor[[32, 64], pl.FP32]],
             blocks: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> tuple[pl.Tensor[[32, 64], pl.FP32], pl.Tensor[[32, 64], pl.FP32], pl.Tensor[[32, 64], pl.FP32]]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="full_width"):
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                full = pl.assemble(full, pl.exp(pl.mul(a, 0.5)), [0, 0])
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="per_lane"):
            c = pl.matmul(a, w)
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                h = pl.aiv_shard(c)
                lanes = pl.assemble(lanes, pl.exp(h), [aiv_id * 16, 0])
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="task_parallel"):
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.NONE):
                for i in pl.range(aiv_id, 4, 2):
                    t = pl.load(a, [i * 8, 0], [8, 64])
                    blocks = pl.store(pl.adds(t, 1.0), [i * 8, 0], blocks)
        return full, lanes, blocks

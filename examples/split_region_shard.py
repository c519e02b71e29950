# A cube result handed to the AIV lanes with pl.aiv_shard inside a region whose body is written per lane
# (docs/passes/lower_auto_vector_split.md, the region path): the matmul stays whole on the cube, each lane
# post-processes its half:
#   pypto run --pipeline tile,lower_auto_vector_split --verify check-run examples/split_region_shard.py
import pypto.language as pl


@pl.program
class ShardRegion:
    @pl.function
    def main(self, x: pl.Tensor[[32, 64], pl.FP32], w: pl.Tensor[[64, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="matmul_exp"):
            c = pl.matmul(x, w)
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                h = pl.aiv_shard(c)
                out = pl.assemble(out, pl.exp(h), [aiv_id * 16, 0])
        return out

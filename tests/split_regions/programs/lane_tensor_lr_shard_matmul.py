# form: per-lane — tensor matmul before a LEFT_RIGHT region; each lane relus its column half of pl.aiv_shard(c).
import pypto.language as pl


@pl.program
class LaneTensorLrShardMatmul:
    @pl.function
    def main(self, x: pl.Tensor[[16, 32], pl.FP32], w: pl.Tensor[[32, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="lr_shard"):
            c = pl.matmul(x, w)
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.LEFT_RIGHT):
                h = pl.aiv_shard(c)
                r = pl.relu(h)
                out = pl.assemble(out, r, [0, aiv_id * 32])
        return out

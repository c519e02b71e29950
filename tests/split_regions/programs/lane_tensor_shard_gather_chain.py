# form: per-lane — matmul -> UP_DOWN region (aiv_shard, relu, aic_gather) -> second matmul, all in one scope.
import pypto.language as pl


@pl.program
class LaneTensorShardGatherChain:
    @pl.function
    def main(self, x: pl.Tensor[[32, 32], pl.FP32], w1: pl.Tensor[[32, 32], pl.FP32], w2: pl.Tensor[[32, 16], pl.FP32],
             out: pl.Out[pl.Tensor[[32, 16], pl.FP32]]) -> pl.Tensor[[32, 16], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="mlp"):
            h = pl.matmul(x, w1)
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                hs = pl.aiv_shard(h)
                r = pl.relu(hs)
                g = pl.aic_gather(r)
            y = pl.matmul(g, w2)
            out = pl.assemble(out, y, [0, 0])
        return out

# form: per-lane — tensor matmul before an UP_DOWN region in the same scope; the region takes pl.aiv_shard(c).
import pypto.language as pl


@pl.program
class LaneTensorUdShardMatmul:
    @pl.function
    def main(self, x: pl.Tensor[[32, 32], pl.FP32], w: pl.Tensor[[32, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="ud_shard"):
            c = pl.matmul(x, w)
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                h = pl.aiv_shard(c)
                e = pl.exp(pl.mul(h, 0.125))
                out = pl.assemble(out, e, [aiv_id * 16, 0])
        return out

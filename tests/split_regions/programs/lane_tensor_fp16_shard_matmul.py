# form: per-lane — FP16 tensor matmul before an UP_DOWN region; each lane casts its pl.aiv_shard half and exps it.
import pypto.language as pl


@pl.program
class LaneTensorFp16ShardMatmul:
    @pl.function
    def main(self, x: pl.Tensor[[32, 32], pl.FP16], w: pl.Tensor[[32, 32], pl.FP16],
             out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="fp16_shard"):
            c = pl.matmul(x, w)
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                h = pl.aiv_shard(c)
                e = pl.exp(pl.cast(h, pl.FP32))
                out = pl.assemble(out, e, [aiv_id * 16, 0])
        return out

# form: none — a matmul before a NONE region: pl.aiv_shard(c) keeps the whole tile; each lane stores its 16 rows.
import pypto.language as pl


@pl.program
class NoneTensorShardMatmul:
    @pl.function
    def main(self, x: pl.Tensor[[32, 32], pl.FP32], w: pl.Tensor[[32, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="none_shard"):
            c = pl.matmul(x, w)
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.NONE):
                h = pl.aiv_shard(c)
                part = pl.slice(h, [16, 64], [aiv_id * 16, 0])
                out = pl.assemble(out, pl.exp(part), [aiv_id * 16, 0])
        return out

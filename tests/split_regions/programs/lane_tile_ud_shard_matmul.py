# form: per-lane — tile-level matmul (Mat -> Left/Right -> Acc) before an UP_DOWN region that shards the Acc tile.
import pypto.language as pl


@pl.program
class LaneTileUdShardMatmul:
    @pl.function
    def main(self, a: pl.Tensor[[64, 32], pl.FP32], b: pl.Tensor[[32, 32], pl.FP32],
             out: pl.Out[pl.Tensor[[64, 32], pl.FP32]]) -> pl.Tensor[[64, 32], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="tile_shard"):
            am = pl.load(a, [0, 0], [64, 32], target_memory=pl.Mem.Mat)
            bm = pl.load(b, [0, 0], [32, 32], target_memory=pl.Mem.Mat)
            al = pl.move(am, target_memory=pl.Mem.Left)
            br = pl.move(bm, target_memory=pl.Mem.Right)
            acc = pl.matmul(al, br)
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                h = pl.aiv_shard(acc)
                y = pl.tile.adds(pl.tile.exp(h), 1.0)
                out = pl.store(y, [aiv_id * 32, 0], out)
        return out

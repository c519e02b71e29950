# form: per-lane — tile-level UP_DOWN region: lane-addressed loads, exp, pl.aic_gather into a Left-operand matmul.
import pypto.language as pl


@pl.program
class LaneTileGatherMatmul:
    @pl.function
    def main(self, a: pl.Tensor[[32, 32], pl.FP32], b: pl.Tensor[[32, 16], pl.FP32],
             out: pl.Out[pl.Tensor[[32, 16], pl.FP32]]) -> pl.Tensor[[32, 16], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="tile_gather_mm"):
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                t = pl.load(a, [aiv_id * 16, 0], [16, 32])
                e = pl.tile.muls(pl.tile.exp(t), 0.5)
                full = pl.aic_gather(e)
            xl = pl.move(full, target_memory=pl.Mem.Left)
            br = pl.move(pl.load(b, [0, 0], [32, 16], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
            out = pl.store(pl.matmul(xl, br), [0, 0], out)
        return out

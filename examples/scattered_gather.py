# A per-lane scattered gather: each AIV lane gathers its half of a row set from a table with
# pl.gather_row (its src_offset comes from the lane's indices) into a half-extent accumulator, and
# pl.aic_gather hands the reassembled tile to the cube for a matmul:
#   pypto run --pipeline tile,lower_auto_vector_split --verify check-run examples/scattered_gather.py
import pypto.language as pl


@pl.program
class ScatteredGather:
    @pl.function
    def main(self, idx: pl.Tensor[[128], pl.INT32], pool: pl.Tensor[[256, 64], pl.FP16], q: pl.Tensor[[16, 128], pl.FP16],
             out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="sparse_kv"):
            for aiv in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                ub = pl.tile.full([64, 64], dtype=pl.FP16, value=0.0)  # the lane's half extent
                for k in pl.range(64):
                    row = pl.cast(pl.tensor.read(idx, [aiv * 64 + k]), pl.INDEX) % 256
                    ub = pl.gather_row(ub, pool, [k, 0], [row, 0], [1, 64])  # lane-derived src_offset
                kv = pl.aic_gather(ub)  # both halves: [128, 64] in Mat
            qm = pl.load(q, [0, 0], [16, 128], target_memory=pl.Mem.Mat)
            c = pl.matmul(pl.move(qm, target_memory=pl.Mem.Left), pl.move(kv, target_memory=pl.Mem.Right))
            out = pl.store(c, [0, 0], out)
        return out

# pypto.reproducer v1
# Written by `pypto compile` when pass 'convert_tensor_to_tile_ops' failed on /work/wt-ctto/examples/basic.py.
# Below is the program that pass was given. Rerun the failure with
#     pypto compile --replay pypto-reproducer.py
# and shrink the program while it still fails with
#     pypto reduce pypto-reproducer.py --until-mismatch
#
# pipeline: convert_tensor_to_tile_ops,lower_composite_ops,flatten_tile_nd_to_2d,legalize_tile_cast,auto_tile_matmul_l0,canonicalize_tile_slice,infer_tile_memory_space,insert_mx_scale_addr,resolve_backend_op_layouts,lower_auto_vector_split,expand_mixed_kernel,split_vector_kernel,stamp_tfree_split,normalize_return_order,canonicalize_io_order,materialize_tensor_strides,init_mem_ref,materialize_semantic_aliases,memory_reuse,allocate_memory_addr
# backend: Ascend910B
# verify: check-run
# seed: 0
# disabled-plugins: 
# failure: mismatch
# message: check-run: pass 'convert_tensor_to_tile_ops' (ConvertTensorToTileOps, from plugin 'pass_tile' / pypto 0.1.0) changed what the program computes: output 'x': extra output: expected nothing, got an output
# until: check-run: pass 'convert_tensor_to_tile_ops' (ConvertTensorToTileOps, from plugin 'pass_tile' / pypto 0.1.0) changed what the program computes: output 'x': extr
# pypto.program: Basic
import pypto.language as pl

@pl.program
class Basic:
    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)
    def main_incore_0(y__ssa_v0: pl.Tensor[[64], pl.FP32], x__ssa_v0: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        tile__ssa_v0: pl.Tile[[64], pl.FP32, pl.Mem.Vec] = pl.tile.load(y__ssa_v0, [0], [64], [64], target_memory=pl.Mem.Vec)
        tile_sq__ssa_v0: pl.Tile[[64], pl.FP32, pl.Mem.Vec] = pl.tile.mul(tile__ssa_v0, tile__ssa_v0)
        result_tile__ssa_v0: pl.Tile[[64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(tile_sq__ssa_v0, 1.0)
        result__ssa_v0: pl.Tensor[[64], pl.FP32] = pl.tile.store(result_tile__ssa_v0, [0], x__ssa_v0)
        x__store: pl.Tensor[[64], pl.FP32] = result__ssa_v0
        return x__ssa_v0
    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def main(self, x__ssa_v0: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        y__ssa_v0: pl.Tensor[[64], pl.FP32] = pl.tensor.adds(x__ssa_v0, 1.0)
        x__ssa_v1: pl.Tensor[[64], pl.FP32] = self.main_incore_0(y__ssa_v0, x__ssa_v0)
        z__ssa_v0: pl.Tensor[[64], pl.FP32] = pl.tensor.adds(x__ssa_v1, 2.0)
        return z__ssa_v0

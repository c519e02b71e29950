"""InferTileMemorySpace in the style of PyPTO's unit tests of the transforms: decorated Before / Expected
programs, `passes.infer_tile_memory_space()(passes.convert_to_ssa()(Before))`, structural comparison,
under PyPTO's default context (verification before/after + round trip) on Ascend950."""

from __future__ import annotations

import pytest

import pypto
import pypto.language as pl
from pypto import ir, passes


def _infer(before: ir.Program) -> ir.Program:
    return passes.infer_tile_memory_space()(passes.convert_to_ssa()(before))


class TestInferTileMemorySpace:
    def test_vector_kernel_is_unchanged(self):
        @pl.program
        class Before:
            @pl.function(type=pl.FunctionType.InCore)
            def main_incore_0(self, x: pl.Tensor[[64, 64], pl.FP32], out_0: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
                x_tile: pl.Tile[[64, 64], pl.FP32] = pl.load(x, [0, 0], [64, 64])
                y_tile: pl.Tile[[64, 64], pl.FP32] = pl.tile.add(x_tile, x_tile)
                out_0: pl.Tensor[[64, 64], pl.FP32] = pl.store(y_tile, [0, 0], out_0)
                return out_0

        After = _infer(Before)
        ir.assert_structural_equal(After, passes.convert_to_ssa()(Before))

    def test_matmul_operands_move_to_left_and_right(self):
        @pl.program
        class Before:
            @pl.function(type=pl.FunctionType.InCore)
            def main_incore_0(self, x: pl.Tensor[[16, 128], pl.BF16], y: pl.Tensor[[128, 128], pl.BF16],
                              out_0: pl.Out[pl.Tensor[[16, 128], pl.FP32]]) -> pl.Tensor[[16, 128], pl.FP32]:
                x_tile = pl.load(x, [0, 0], [16, 128], target_memory=pl.Mem.Mat)
                y_tile = pl.load(y, [0, 0], [128, 128], target_memory=pl.Mem.Mat)
                z_tile = pl.tile.matmul(x_tile, y_tile)
                out_0 = pl.store(z_tile, [0, 0], out_0)
                return out_0

        @pl.program
        class Expected:
            @pl.function(type=pl.FunctionType.InCore)
            def main_incore_0(self, x: pl.Tensor[[16, 128], pl.BF16], y: pl.Tensor[[128, 128], pl.BF16],
                              out_0: pl.Out[pl.Tensor[[16, 128], pl.FP32]]) -> pl.Tensor[[16, 128], pl.FP32]:
                x_tile: pl.Tile[[16, 128], pl.BF16, pl.Mem.Mat] = pl.load(x, [0, 0], [16, 128], target_memory=pl.Mem.Mat)
                y_tile: pl.Tile[[128, 128], pl.BF16, pl.Mem.Mat] = pl.load(y, [0, 0], [128, 128], target_memory=pl.Mem.Mat)
                x_tile_Left: pl.Tile[[16, 128], pl.BF16, pl.Mem.Left] = pl.move(x_tile, target_memory=pl.Mem.Left)
                y_tile_Right: pl.Tile[[128, 128], pl.BF16, pl.Mem.Right] = pl.move(y_tile, target_memory=pl.Mem.Right)
                z_tile: pl.Tile[[16, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(x_tile_Left, y_tile_Right)
                out_0: pl.Tensor[[16, 128], pl.FP32] = pl.store(z_tile, [0, 0], out_0)
                return out_0

        After = _infer(Before)
        ir.assert_structural_equal(After, passes.convert_to_ssa()(Expected))

    def test_accumulator_created_in_vec_becomes_acc_across_the_k_loop(self):
        @pl.program
        class Before:
            @pl.function(type=pl.FunctionType.InCore)
            def main_incore_0(self, a: pl.Tensor[[16, 64], pl.FP16], b: pl.Tensor[[64, 32], pl.FP16],
                              out_0: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
                acc = pl.tile.create([16, 32], dtype=pl.FP32, target_memory=pl.Mem.Vec)
                for k in pl.range(2):
                    a_t = pl.load(a, [0, k * 32], [16, 32], target_memory=pl.Mem.Mat)
                    b_t = pl.load(b, [k * 32, 0], [32, 32], target_memory=pl.Mem.Mat)
                    acc = pl.tile.matmul_acc(acc, a_t, b_t)
                out_0 = pl.store(acc, [0, 0], out_0)
                return out_0

        @pl.program
        class Expected:
            @pl.function(type=pl.FunctionType.InCore)
            def main_incore_0(self, a: pl.Tensor[[16, 64], pl.FP16], b: pl.Tensor[[64, 32], pl.FP16],
                              out_0: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
                acc: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.create([16, 32], dtype=pl.FP32, target_memory=pl.Mem.Acc)
                for k in pl.range(2):
                    a_t = pl.load(a, [0, k * 32], [16, 32], target_memory=pl.Mem.Mat)
                    b_t = pl.load(b, [k * 32, 0], [32, 32], target_memory=pl.Mem.Mat)
                    a_t_Left = pl.move(a_t, target_memory=pl.Mem.Left)
                    b_t_Right = pl.move(b_t, target_memory=pl.Mem.Right)
                    acc = pl.tile.matmul_acc(acc, a_t_Left, b_t_Right)
                out_0 = pl.store(acc, [0, 0], out_0)
                return out_0

        After = _infer(Before)
        ir.assert_structural_equal(After, passes.convert_to_ssa()(Expected))

    def test_acc_result_consumed_by_a_vector_op_moves_to_vec_row_major(self):
        @pl.program
        class Before:
            @pl.function(type=pl.FunctionType.InCore)
            def main_incore_0(self, a: pl.Tensor[[16, 16], pl.FP32], out_0: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
                a_l = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
                c = pl.tile.matmul(a_l, a_l)
                d = pl.tile.exp(c)
                out_0 = pl.store(d, [0, 0], out_0)
                return out_0

        @pl.program
        class Expected:
            @pl.function(type=pl.FunctionType.InCore)
            def main_incore_0(self, a: pl.Tensor[[16, 16], pl.FP32], out_0: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
                a_l = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
                a_l_Left = pl.move(a_l, target_memory=pl.Mem.Left)
                a_l_Right = pl.move(a_l, target_memory=pl.Mem.Right)
                c = pl.tile.matmul(a_l_Left, a_l_Right)
                c_Vec = pl.move(c, target_memory=pl.Mem.Vec, blayout=pl.TileLayout.row_major, slayout=pl.TileLayout.none_box)
                d = pl.tile.exp(c_Vec)
                out_0 = pl.store(d, [0, 0], out_0)
                return out_0

        After = _infer(Before)
        ir.assert_structural_equal(After, passes.convert_to_ssa()(Expected))

    def test_tile_parameter_without_memory_space_is_a_user_error(self):
        # The program's own mistake, not a pass's: a ValueError naming the fix (docs/passes/infer_tile_memory_space.md, errors).
        t = ir.Var("t", ir.TileType([16, 16], pl.FP32))
        prog = ir.Program([ir.Function("k", [t], [], ir.ReturnStmt([]), type=ir.FunctionType.InCore)], "P")
        with pytest.raises(ValueError, match="pass a tensor and load it inside the kernel") as info:
            passes.infer_tile_memory_space()(prog)
        assert not isinstance(info.value, pypto.InternalError)

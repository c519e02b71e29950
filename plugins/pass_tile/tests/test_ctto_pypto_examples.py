"""ConvertTensorToTileOps prints what PyPTO prints on the worked examples of docs/passes/convert_tensor_to_tile_ops.md
(examples 1 and 2: entry loads in Vec in parameter order, `<base>__tile` names, Mat bridge loads with the private
marker, `tile.transpose_view` for `b_trans`, the 128-wide row-reduction scratch, `tile.row_expand_add`,
`ret<k>__out` / `ret<k>__store`), and each runs the same before and after on the reference machine."""

from __future__ import annotations

from pypto import ir

from .ctto_forms import converted

EXAMPLE_1 = '''
@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            a = pl.add(x, y)
            b = pl.mul(a, 2.0)
            c = pl.exp(b)
        return c
'''

EXAMPLE_1_OUT = '''\
@pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)
def main_incore_0(x__ssa_v0: pl.Tensor[[16, 64], pl.FP32], y__ssa_v0: pl.Tensor[[16, 64], pl.FP32], ret0__out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
    x__tile: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x__ssa_v0, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
    y__tile: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(y__ssa_v0, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
    a__tile: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(x__tile, y__tile)
    b__tile: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.muls(a__tile, 2.0)
    c__tile: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(b__tile)
    ret0__store: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(c__tile, [0, 0], ret0__out)
    return ret0__store'''

# printed alone (no class), the call has no `self.`
EXAMPLE_1_CALLER = '''\
    ret0__out: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.create([16, 64], dtype=pl.FP32, layout=pl.TensorLayout.ND)
    c__ssa_v0: pl.Tensor[[16, 64], pl.FP32] = main_incore_0(x__ssa_v0, y__ssa_v0, ret0__out)'''

EXAMPLE_2 = '''
@pl.program
class P:
    @pl.function
    def main(self, a: pl.Tensor[[64, 128], pl.BF16], b: pl.Tensor[[64, 128], pl.BF16], r: pl.Tensor[[16, 64], pl.FP32]) -> tuple[pl.Tensor[[16, 64], pl.FP32], pl.Tensor[[16, 64], pl.FP32]]:
        with pl.at(level=pl.Level.CORE_GROUP):
            a0 = pl.slice(a, [16, 128], [16, 0])
            c = pl.matmul(a0, b, out_dtype=pl.FP32, b_trans=True)
            s = pl.row_sum(r)
            d = pl.add(r, s)
            e = pl.maximum(d, 0.0)
        return c, e
'''

EXAMPLE_2_OUT = '''\
@pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)
def main_incore_0(a__ssa_v0: pl.Tensor[[64, 128], pl.BF16], b__ssa_v0: pl.Tensor[[64, 128], pl.BF16], r__ssa_v0: pl.Tensor[[16, 64], pl.FP32], ret0__out: pl.Out[pl.Tensor[[16, 64], pl.FP32]], ret1__out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> tuple[pl.Tensor[[16, 64], pl.FP32], pl.Tensor[[16, 64], pl.FP32]]:
    r__tile: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(r__ssa_v0, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
    a0__tile: pl.Tile[[16, 128], pl.BF16, pl.Mem.Mat] = pl.tile.load(a__ssa_v0, [16, 0], [16, 128], [16, 128], target_memory=pl.Mem.Mat, attrs={"__compiler_tensor_to_tile_mat_bridge": True})
    b__ssa_v0_mat: pl.Tile[[64, 128], pl.BF16, pl.Mem.Mat] = pl.tile.load(b__ssa_v0, [0, 0], [64, 128], [64, 128], target_memory=pl.Mem.Mat, attrs={"__compiler_tensor_to_tile_mat_bridge": True})
    b__ssa_v0_mat_t: pl.Tile[[128, 64], pl.BF16, pl.Mem.Mat, pl.TileView(blayout=pl.TileLayout.row_major, slayout=pl.TileLayout.col_major)] = pl.tile.transpose_view(b__ssa_v0_mat)
    c__tile: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(a0__tile, b__ssa_v0_mat_t)
    tmp_tile: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec] = pl.tile.create([16, 128], dtype=pl.FP32, target_memory=pl.Mem.Vec)
    s__tile: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.row_sum(r__tile, tmp_tile)
    d__tile: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.row_expand_add(r__tile, s__tile)
    e__tile: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.maximums(d__tile, 0.0)
    ret0__store: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(c__tile, [0, 0], ret0__out)
    ret1__store: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(e__tile, [0, 0], ret1__out)
    return ret0__store, ret1__store'''


def _printed(program: ir.Program, name: str) -> str:
    return ir.python_print(program.get_function(name), format=False).strip()


def test_example_1_basic() -> None:
    after = converted(EXAMPLE_1)
    assert _printed(after, "main_incore_0") == EXAMPLE_1_OUT
    assert EXAMPLE_1_CALLER in _printed(after, "main")


def test_example_2_bridge_loads_transpose_view_scratch_and_row_broadcast() -> None:
    after = converted(EXAMPLE_2)
    assert _printed(after, "main_incore_0") == EXAMPLE_2_OUT

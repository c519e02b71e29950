"""FlattenTileNdTo2D on N-D transposes and batched products (docs/passes/flatten_tile_nd_to_2d.md): a swap of
the last two axes is one 2-D transpose per page; tile.batch_matmul[_acc] is one 2-D matmul per batch with
transposed (column-batched) and broadcast operands, its store fused per batch. Each case runs on the machine
before and after the pass, and the whole default pipeline is checked on both backends against numpy."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

import pypto.language as pl
from pypto import ir, passes
from pypto_core.interp import Machine, make_inputs, run_program

from .helpers import BACKENDS, HEADER, compiled, same_results

KERNEL = "@pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)"


def program(*functions: str) -> str:
    body = "\n".join("\n".join("    " + line for line in f.strip("\n").splitlines()) for f in functions)
    return f"{HEADER}@pl.program\nclass P:\n{body}\n"


def flatten(before_src: str, expected_src: str | None = None) -> ir.Program:
    before = pl.parse(program(before_src))
    after = passes.flatten_tile_nd_to_2d()(before)
    if expected_src is not None:
        ir.assert_structural_equal(after, pl.parse(program(expected_src)))
    same_results(before, after)
    return after


def ops(after: ir.Program) -> list[str]:
    text = ir.python_print(after)
    return [line.split("= pl.", 1)[1].split("(", 1)[0] for line in text.splitlines() if "= pl." in line]


def matches_numpy(src: str, formula: Callable[..., np.ndarray], backend: str) -> None:
    """The default pipeline's program computes `formula` of the inputs (an independent numpy reference)."""
    after = compiled(src, backend)
    entry = next(iter(Machine(pl.parse(src)).roots()))
    inputs = make_inputs(entry, seed=3)
    out = run_program(after, inputs, entry.name)["return"]
    want = formula(*(np.asarray(v, dtype=np.float32) for v in inputs.values()))
    np.testing.assert_allclose(np.asarray(out, dtype=np.float32), want, rtol=2e-2, atol=2e-2)


def orchestrated(params: str, ret: str, body: str) -> str:
    return (f"{HEADER}@pl.program\nclass P:\n    @pl.function(type=pl.FunctionType.Orchestration)\n"
            f"    def main(self, {params}) -> {ret}:\n        with pl.at(level=pl.Level.CORE_GROUP):\n"
            + "".join(f"            {line}\n" for line in body.strip().splitlines()) + "        return c\n")


# -- N-D transposes ------------------------------------------------------------------------------------------
def test_example_4_a_3d_transpose_of_the_last_two_axes_is_one_2d_transpose_per_page():
    flatten(f'''
{KERNEL}
def k2(x__ssa_v0: pl.Tensor[[2, 8, 16], pl.FP32], o__ssa_v0: pl.Out[pl.Tensor[[2, 16, 8], pl.FP32]]) -> pl.Tensor[[2, 16, 8], pl.FP32]:
    t__ssa_v0: pl.Tile[[2, 8, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x__ssa_v0, [0, 0, 0], [2, 8, 16], [2, 8, 16], target_memory=pl.Mem.Vec)
    u__ssa_v0: pl.Tile[[2, 16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.transpose(t__ssa_v0, 1, 2)
    o__ssa_v1: pl.Tensor[[2, 16, 8], pl.FP32] = pl.tile.store(u__ssa_v0, [0, 0, 0], o__ssa_v0)
    return o__ssa_v1
''', f'''
{KERNEL}
def k2(x__ssa_v0: pl.Tensor[[2, 8, 16], pl.FP32], o__ssa_v0: pl.Out[pl.Tensor[[2, 16, 8], pl.FP32]]) -> pl.Tensor[[2, 16, 8], pl.FP32]:
    t__ssa_v0: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x__ssa_v0, [0, 0, 0], [2, 8, 16], [16, 16], target_memory=pl.Mem.Vec)
    u__ssa_v0: pl.Tile[[32, 8], pl.FP32, pl.Mem.Vec] = pl.tile.create([32, 8], dtype=pl.FP32, target_memory=pl.Mem.Vec)
    trans_tmp_pool: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.create([16, 16], dtype=pl.FP32, target_memory=pl.Mem.Vec)
    trans_page_0: pl.Tile[[8, 16], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t__ssa_v0, [8, 16], [0, 0])
    trans_tmp_0: pl.Tile[[8, 16], pl.FP32, pl.Mem.Vec] = pl.tile.slice(trans_tmp_pool, [8, 16], [0, 0])
    trans_0: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.transpose(trans_page_0, 0, 1, trans_tmp_0)
    u__ssa_v0_1: pl.Tile[[32, 8], pl.FP32, pl.Mem.Vec] = pl.tile.assemble(u__ssa_v0, trans_0, [0, 0])
    trans_page_1: pl.Tile[[8, 16], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t__ssa_v0, [8, 16], [8, 0])
    trans_tmp_1: pl.Tile[[8, 16], pl.FP32, pl.Mem.Vec] = pl.tile.slice(trans_tmp_pool, [8, 16], [8, 0])
    trans_1: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.transpose(trans_page_1, 0, 1, trans_tmp_1)
    u__ssa_v0_2: pl.Tile[[32, 8], pl.FP32, pl.Mem.Vec] = pl.tile.assemble(u__ssa_v0_1, trans_1, [16, 0])
    o__ssa_v1: pl.Tensor[[2, 16, 8], pl.FP32] = pl.tile.store(u__ssa_v0_2, [0, 0, 0], o__ssa_v0, [2, 16, 8])
    return o__ssa_v1
''')


@pytest.mark.parametrize("axes", ["2, 3", "3, 2", "-1, -2"])
def test_a_4d_transpose_has_a_page_per_leading_index_whichever_way_the_axes_are_written(axes):
    after = flatten(f'''
{KERNEL}
def k(x: pl.Tensor[[2, 3, 4, 8], pl.FP32], o: pl.Out[pl.Tensor[[2, 3, 8, 4], pl.FP32]]) -> pl.Tensor[[2, 3, 8, 4], pl.FP32]:
    t: pl.Tile[[2, 3, 4, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0, 0, 0], [2, 3, 4, 8], [2, 3, 4, 8], target_memory=pl.Mem.Vec)
    u: pl.Tile[[2, 3, 8, 4], pl.FP32, pl.Mem.Vec] = pl.tile.transpose(t, {axes})
    o2: pl.Tensor[[2, 3, 8, 4], pl.FP32] = pl.tile.store(u, [0, 0, 0, 0], o)
    return o2
''')
    assert ops(after).count("tile.transpose") == 6 and ops(after).count("tile.assemble") == 6
    assert "pl.tile.create([48, 4]" in ir.python_print(after) and "pl.tile.create([24, 8]" in ir.python_print(after)


def test_a_transpose_feeding_a_row_wise_op_keeps_the_flattened_rows():
    after = flatten(f'''
{KERNEL}
def k(x: pl.Tensor[[3, 16, 8], pl.FP32], o: pl.Out[pl.Tensor[[3, 8, 16], pl.FP32]]) -> pl.Tensor[[3, 8, 16], pl.FP32]:
    t: pl.Tile[[3, 16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0, 0], [3, 16, 8], [3, 16, 8], target_memory=pl.Mem.Vec)
    u: pl.Tile[[3, 8, 16], pl.FP32, pl.Mem.Vec] = pl.tile.transpose(t, 1, 2)
    e: pl.Tile[[3, 8, 16], pl.FP32, pl.Mem.Vec] = pl.tile.exp(u)
    o2: pl.Tensor[[3, 8, 16], pl.FP32] = pl.tile.store(e, [0, 0, 0], o)
    return o2
''')
    assert ops(after).count("tile.transpose") == 3


@pytest.mark.parametrize("axes", ["0, 1", "0, 2"])
def test_a_transpose_of_a_batch_axis_is_a_located_error(axes):
    with pytest.raises(ValueError, match=r"tile.transpose in InCore function 'k' has no 2-D form: only last-two-axes "
                                         r"tile.transpose on >2D tiles is supported.*\(axes 0, \d of rank 3\).*Reshape"):
        flatten(f'''
{KERNEL}
def k(x: pl.Tensor[[4, 4, 4], pl.FP32], o: pl.Out[pl.Tensor[[4, 4, 4], pl.FP32]]) -> pl.Tensor[[4, 4, 4], pl.FP32]:
    t: pl.Tile[[4, 4, 4], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0, 0], [4, 4, 4], [4, 4, 4], target_memory=pl.Mem.Vec)
    u: pl.Tile[[4, 4, 4], pl.FP32, pl.Mem.Vec] = pl.tile.transpose(t, {axes})
    o2: pl.Tensor[[4, 4, 4], pl.FP32] = pl.tile.store(u, [0, 0, 0], o)
    return o2
''')


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("shape", [[2, 16, 8], [2, 2, 8, 16]])
def test_an_nd_transpose_through_the_default_pipeline_is_numpys_swapaxes(backend, shape):
    out = [*shape[:-2], shape[-1], shape[-2]]
    rank = len(shape)
    src = orchestrated(f"x: pl.Tensor[{shape}, pl.FP32]", f"pl.Tensor[{out}, pl.FP32]",
                       f"c = pl.transpose(pl.add(x, 1.0), {rank - 2}, {rank - 1})")
    matches_numpy(src, lambda x: np.swapaxes(x + 1.0, -1, -2), backend)


# -- batched products ----------------------------------------------------------------------------------------
EX2_PARAMS = ("a__ssa_v0: pl.Tensor[[2, 16, 64], pl.BF16], b__ssa_v0: pl.Tensor[[2, 32, 64], pl.BF16], "
              "ret0__out: pl.Out[pl.Tensor[[2, 16, 32], pl.FP32]]")
BT = "pl.TileView(blayout=pl.TileLayout.row_major, slayout=pl.TileLayout.col_major)"


def test_example_2_a_b_trans_product_followed_by_its_store_is_one_matmul_and_store_per_batch():
    flatten(f'''
{KERNEL}
def main_incore_0({EX2_PARAMS}) -> pl.Tensor[[2, 16, 32], pl.FP32]:
    a__ssa_v0_mat: pl.Tile[[2, 16, 64], pl.BF16, pl.Mem.Mat] = pl.tile.load(a__ssa_v0, [0, 0, 0], [2, 16, 64], [2, 16, 64], target_memory=pl.Mem.Mat)
    b__ssa_v0_mat: pl.Tile[[2, 32, 64], pl.BF16, pl.Mem.Mat] = pl.tile.load(b__ssa_v0, [0, 0, 0], [2, 32, 64], [2, 32, 64], target_memory=pl.Mem.Mat)
    b__ssa_v0_mat_t: pl.Tile[[2, 64, 32], pl.BF16, pl.Mem.Mat, {BT}] = pl.tile.transpose_view(b__ssa_v0_mat)
    c__tile: pl.Tile[[2, 16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.batch_matmul(a__ssa_v0_mat, b__ssa_v0_mat_t)
    ret0__store: pl.Tensor[[2, 16, 32], pl.FP32] = pl.tile.store(c__tile, [0, 0, 0], ret0__out)
    return ret0__store
''', f'''
{KERNEL}
def main_incore_0({EX2_PARAMS}) -> pl.Tensor[[2, 16, 32], pl.FP32]:
    a__ssa_v0_mat_view2d: pl.Tensor[[32, 64], pl.BF16, pl.TensorView(stride=[64, 1], layout=pl.TensorLayout.ND)] = pl.tensor.view(a__ssa_v0, [32, 64])
    a__ssa_v0_mat: pl.Tile[[32, 64], pl.BF16, pl.Mem.Mat] = pl.tile.load(a__ssa_v0_mat_view2d, [0, 0], [32, 64], [32, 64], target_memory=pl.Mem.Mat)
    b__ssa_v0_mat_view2d: pl.Tensor[[64, 64], pl.BF16, pl.TensorView(stride=[64, 1], layout=pl.TensorLayout.ND)] = pl.tensor.view(b__ssa_v0, [64, 64])
    b__ssa_v0_mat: pl.Tile[[64, 64], pl.BF16, pl.Mem.Mat] = pl.tile.load(b__ssa_v0_mat_view2d, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Mat)
    b__ssa_v0_mat_t: pl.Tile[[64, 64], pl.BF16, pl.Mem.Mat, {BT}] = pl.tile.transpose_view(b__ssa_v0_mat)
    lhs_slice_0: pl.Tile[[16, 64], pl.BF16, pl.Mem.Mat] = pl.tile.slice(a__ssa_v0_mat, [16, 64], [0, 0])
    rhs_slice_0: pl.Tile[[64, 32], pl.BF16, pl.Mem.Mat, {BT}] = pl.tile.slice(b__ssa_v0_mat_t, [64, 32], [0, 0])
    matmul_0: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(lhs_slice_0, rhs_slice_0)
    ret0__store_0: pl.Tensor[[2, 16, 32], pl.FP32] = pl.tile.store(matmul_0, [0, 0, 0], ret0__out, [1, 16, 32])
    lhs_slice_1: pl.Tile[[16, 64], pl.BF16, pl.Mem.Mat] = pl.tile.slice(a__ssa_v0_mat, [16, 64], [16, 0])
    rhs_slice_1: pl.Tile[[64, 32], pl.BF16, pl.Mem.Mat, {BT}] = pl.tile.slice(b__ssa_v0_mat_t, [64, 32], [0, 32])
    matmul_1: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(lhs_slice_1, rhs_slice_1)
    ret0__store_1: pl.Tensor[[2, 16, 32], pl.FP32] = pl.tile.store(matmul_1, [1, 0, 0], ret0__store_0, [1, 16, 32])
    return ret0__store_1
''')


EX3_PARAMS = ("a__ssa_v0: pl.Tensor[[1, 64, 16], pl.BF16], b__ssa_v0: pl.Tensor[[2, 64, 32], pl.BF16], "
              "d__ssa_v0: pl.Tensor[[2, 16, 32], pl.FP32], ret0__out: pl.Out[pl.Tensor[[2, 16, 32], pl.FP32]]")
VEC_NZ = "pl.TileView(blayout=pl.TileLayout.col_major, slayout=pl.TileLayout.row_major)"


def test_example_3_a_broadcast_a_trans_product_read_by_an_add_is_assembled_in_acc():
    # PyPTO moves each product to Vec before assembling; pypto assembles in Acc (the doc's deviations).
    flatten(f'''
{KERNEL}
def main_incore_0({EX3_PARAMS}) -> pl.Tensor[[2, 16, 32], pl.FP32]:
    d__tile: pl.Tile[[2, 16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(d__ssa_v0, [0, 0, 0], [2, 16, 32], [2, 16, 32], target_memory=pl.Mem.Vec)
    a__ssa_v0_mat: pl.Tile[[1, 64, 16], pl.BF16, pl.Mem.Mat] = pl.tile.load(a__ssa_v0, [0, 0, 0], [1, 64, 16], [1, 64, 16], target_memory=pl.Mem.Mat)
    a__ssa_v0_mat_t: pl.Tile[[1, 16, 64], pl.BF16, pl.Mem.Mat, {BT}] = pl.tile.transpose_view(a__ssa_v0_mat)
    b__ssa_v0_mat: pl.Tile[[2, 64, 32], pl.BF16, pl.Mem.Mat] = pl.tile.load(b__ssa_v0, [0, 0, 0], [2, 64, 32], [2, 64, 32], target_memory=pl.Mem.Mat)
    c__tile: pl.Tile[[2, 16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.batch_matmul(a__ssa_v0_mat_t, b__ssa_v0_mat)
    e__tile: pl.Tile[[2, 16, 32], pl.FP32, pl.Mem.Vec, {VEC_NZ}] = pl.tile.add(c__tile, d__tile)
    ret0__store: pl.Tensor[[2, 16, 32], pl.FP32] = pl.tile.store(e__tile, [0, 0, 0], ret0__out)
    return ret0__store
''', f'''
{KERNEL}
def main_incore_0({EX3_PARAMS}) -> pl.Tensor[[2, 16, 32], pl.FP32]:
    d__tile: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(d__ssa_v0, [0, 0, 0], [2, 16, 32], [32, 32], target_memory=pl.Mem.Vec)
    a__ssa_v0_mat_view2d: pl.Tensor[[64, 16], pl.BF16, pl.TensorView(stride=[16, 1], layout=pl.TensorLayout.ND)] = pl.tensor.view(a__ssa_v0, [64, 16])
    a__ssa_v0_mat: pl.Tile[[64, 16], pl.BF16, pl.Mem.Mat] = pl.tile.load(a__ssa_v0_mat_view2d, [0, 0], [64, 16], [64, 16], target_memory=pl.Mem.Mat)
    a__ssa_v0_mat_t: pl.Tile[[16, 64], pl.BF16, pl.Mem.Mat, {BT}] = pl.tile.transpose_view(a__ssa_v0_mat)
    b__ssa_v0_mat_view2d: pl.Tensor[[128, 32], pl.BF16, pl.TensorView(stride=[32, 1], layout=pl.TensorLayout.ND)] = pl.tensor.view(b__ssa_v0, [128, 32])
    b__ssa_v0_mat: pl.Tile[[128, 32], pl.BF16, pl.Mem.Mat] = pl.tile.load(b__ssa_v0_mat_view2d, [0, 0], [128, 32], [128, 32], target_memory=pl.Mem.Mat)
    c__tile: pl.Tile[[32, 32], pl.FP32, pl.Mem.Acc] = pl.tile.create([32, 32], dtype=pl.FP32, target_memory=pl.Mem.Acc)
    lhs_slice_0: pl.Tile[[16, 64], pl.BF16, pl.Mem.Mat, {BT}] = pl.tile.slice(a__ssa_v0_mat_t, [16, 64], [0, 0])
    rhs_slice_0: pl.Tile[[64, 32], pl.BF16, pl.Mem.Mat] = pl.tile.slice(b__ssa_v0_mat, [64, 32], [0, 0])
    matmul_0: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(lhs_slice_0, rhs_slice_0)
    c__tile_1: pl.Tile[[32, 32], pl.FP32, pl.Mem.Acc] = pl.tile.assemble(c__tile, matmul_0, [0, 0])
    lhs_slice_0_1: pl.Tile[[16, 64], pl.BF16, pl.Mem.Mat, {BT}] = pl.tile.slice(a__ssa_v0_mat_t, [16, 64], [0, 0])
    rhs_slice_1: pl.Tile[[64, 32], pl.BF16, pl.Mem.Mat] = pl.tile.slice(b__ssa_v0_mat, [64, 32], [64, 0])
    matmul_1: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(lhs_slice_0_1, rhs_slice_1)
    c__tile_2: pl.Tile[[32, 32], pl.FP32, pl.Mem.Acc] = pl.tile.assemble(c__tile_1, matmul_1, [16, 0])
    e__tile: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.add(c__tile_2, d__tile)
    ret0__store: pl.Tensor[[2, 16, 32], pl.FP32] = pl.tile.store(e__tile, [0, 0, 0], ret0__out, [2, 16, 32])
    return ret0__store
''')


PRODUCT_PARAMS = ("a: pl.Tensor[[1, 16, 64], pl.BF16], b: pl.Tensor[[1, 64, 32], pl.BF16], "
                  "d: pl.Tensor[[1, 16, 32], pl.FP32], o: pl.Out[pl.Tensor[[1, 16, 32], pl.FP32]]")


def test_a_batch_of_one_not_followed_by_its_store_is_the_one_matmul():
    flatten(f'''
{KERNEL}
def k({PRODUCT_PARAMS}) -> pl.Tensor[[1, 16, 32], pl.FP32]:
    ta: pl.Tile[[1, 16, 64], pl.BF16, pl.Mem.Mat] = pl.tile.load(a, [0, 0, 0], [1, 16, 64], [1, 16, 64], target_memory=pl.Mem.Mat)
    tb: pl.Tile[[1, 64, 32], pl.BF16, pl.Mem.Mat] = pl.tile.load(b, [0, 0, 0], [1, 64, 32], [1, 64, 32], target_memory=pl.Mem.Mat)
    td: pl.Tile[[1, 16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(d, [0, 0, 0], [1, 16, 32], [1, 16, 32], target_memory=pl.Mem.Vec)
    c: pl.Tile[[1, 16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.batch_matmul(ta, tb)
    e: pl.Tile[[1, 16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.add(c, td)
    o2: pl.Tensor[[1, 16, 32], pl.FP32] = pl.tile.store(e, [0, 0, 0], o)
    return o2
''', f'''
{KERNEL}
def k({PRODUCT_PARAMS}) -> pl.Tensor[[1, 16, 32], pl.FP32]:
    ta_view2d: pl.Tensor[[16, 64], pl.BF16, pl.TensorView(stride=[64, 1], layout=pl.TensorLayout.ND)] = pl.tensor.view(a, [16, 64])
    ta: pl.Tile[[16, 64], pl.BF16, pl.Mem.Mat] = pl.tile.load(ta_view2d, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Mat)
    tb_view2d: pl.Tensor[[64, 32], pl.BF16, pl.TensorView(stride=[32, 1], layout=pl.TensorLayout.ND)] = pl.tensor.view(b, [64, 32])
    tb: pl.Tile[[64, 32], pl.BF16, pl.Mem.Mat] = pl.tile.load(tb_view2d, [0, 0], [64, 32], [64, 32], target_memory=pl.Mem.Mat)
    td: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(d, [0, 0, 0], [1, 16, 32], [16, 32], target_memory=pl.Mem.Vec)
    lhs_slice_0: pl.Tile[[16, 64], pl.BF16, pl.Mem.Mat] = pl.tile.slice(ta, [16, 64], [0, 0])
    rhs_slice_0: pl.Tile[[64, 32], pl.BF16, pl.Mem.Mat] = pl.tile.slice(tb, [64, 32], [0, 0])
    c: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(lhs_slice_0, rhs_slice_0)
    e: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.add(c, td)
    o2: pl.Tensor[[1, 16, 32], pl.FP32] = pl.tile.store(e, [0, 0, 0], o, [1, 16, 32])
    return o2
''')


def test_a_product_read_twice_is_not_fused_with_its_store():
    after = flatten(f'''
{KERNEL}
def k(a: pl.Tensor[[2, 16, 32], pl.FP32], b: pl.Tensor[[2, 32, 16], pl.FP32], o: pl.Out[pl.Tensor[[2, 16, 16], pl.FP32]], p: pl.Out[pl.Tensor[[2, 16, 16], pl.FP32]]) -> tuple[pl.Tensor[[2, 16, 16], pl.FP32], pl.Tensor[[2, 16, 16], pl.FP32]]:
    ta: pl.Tile[[2, 16, 32], pl.FP32, pl.Mem.Mat] = pl.tile.load(a, [0, 0, 0], [2, 16, 32], [2, 16, 32], target_memory=pl.Mem.Mat)
    tb: pl.Tile[[2, 32, 16], pl.FP32, pl.Mem.Mat] = pl.tile.load(b, [0, 0, 0], [2, 32, 16], [2, 32, 16], target_memory=pl.Mem.Mat)
    c: pl.Tile[[2, 16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.batch_matmul(ta, tb)
    o2: pl.Tensor[[2, 16, 16], pl.FP32] = pl.tile.store(c, [0, 0, 0], o)
    p2: pl.Tensor[[2, 16, 16], pl.FP32] = pl.tile.store(c, [0, 0, 0], p)
    return o2, p2
''')
    assert ops(after).count("tile.store") == 2 and ops(after).count("tile.assemble") == 2


def test_a_4d_broadcast_product_pages_each_operand_by_its_own_batch_index():
    after = flatten(f'''
{KERNEL}
def k(a: pl.Tensor[[2, 1, 16, 32], pl.FP32], b: pl.Tensor[[3, 32, 16], pl.FP32], o: pl.Out[pl.Tensor[[2, 3, 16, 16], pl.FP32]]) -> pl.Tensor[[2, 3, 16, 16], pl.FP32]:
    ta: pl.Tile[[2, 1, 16, 32], pl.FP32, pl.Mem.Mat] = pl.tile.load(a, [0, 0, 0, 0], [2, 1, 16, 32], [2, 1, 16, 32], target_memory=pl.Mem.Mat)
    tb: pl.Tile[[3, 32, 16], pl.FP32, pl.Mem.Mat] = pl.tile.load(b, [0, 0, 0], [3, 32, 16], [3, 32, 16], target_memory=pl.Mem.Mat)
    c: pl.Tile[[2, 3, 16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.batch_matmul(ta, tb)
    o2: pl.Tensor[[2, 3, 16, 16], pl.FP32] = pl.tile.store(c, [0, 0, 0, 0], o)
    return o2
''')
    text = ir.python_print(after)
    assert ops(after).count("tile.matmul") == 6 and ops(after).count("tile.store") == 6
    assert "pl.tile.store(matmul_5, [1, 2, 0, 0]" in text and "[1, 1, 16, 16])" in text
    assert text.count("pl.tile.slice(ta, [16, 32], [16, 0])") == 3  # a's second page, for each of b's 3


ACC_PARAMS = ("acc: pl.Tensor[[{b}, 16, 16], pl.FP32], a: pl.Tensor[[{b}, 16, 32], pl.FP32], "
              "x: pl.Tensor[[{b}, 32, 16], pl.FP32], o: pl.Out[pl.Tensor[[{b}, 16, 16], pl.FP32]]")


@pytest.mark.parametrize("batches", [1, 2, 3])
def test_batch_matmul_acc_accumulates_each_page_into_its_block_of_the_flattened_acc(batches):
    params = ACC_PARAMS.format(b=batches)
    after = flatten(f'''
{KERNEL}
def k({params}) -> pl.Tensor[[{batches}, 16, 16], pl.FP32]:
    tc: pl.Tile[[{batches}, 16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(acc, [0, 0, 0], [{batches}, 16, 16], [{batches}, 16, 16], target_memory=pl.Mem.Vec)
    ta: pl.Tile[[{batches}, 16, 32], pl.FP32, pl.Mem.Mat] = pl.tile.load(a, [0, 0, 0], [{batches}, 16, 32], [{batches}, 16, 32], target_memory=pl.Mem.Mat)
    tx: pl.Tile[[{batches}, 32, 16], pl.FP32, pl.Mem.Mat] = pl.tile.load(x, [0, 0, 0], [{batches}, 32, 16], [{batches}, 32, 16], target_memory=pl.Mem.Mat)
    c: pl.Tile[[{batches}, 16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.batch_matmul_acc(tc, ta, tx)
    o2: pl.Tensor[[{batches}, 16, 16], pl.FP32] = pl.tile.store(c, [0, 0, 0], o)
    return o2
''')
    assert ops(after).count("tile.matmul_acc") == batches
    assert ops(after).count("tile.assemble") == (0 if batches == 1 else batches)


MATMULS = {
    "b_trans": ("a: pl.Tensor[[2, 16, 64], pl.BF16], b: pl.Tensor[[2, 32, 64], pl.BF16]", [2, 16, 32],
                "c = pl.matmul(a, b, out_dtype=pl.FP32, b_trans=True)", lambda a, b: a @ np.swapaxes(b, -1, -2)),
    "a_trans": ("a: pl.Tensor[[2, 64, 16], pl.BF16], b: pl.Tensor[[2, 64, 32], pl.BF16]", [2, 16, 32],
                "c = pl.matmul(a, b, out_dtype=pl.FP32, a_trans=True)", lambda a, b: np.swapaxes(a, -1, -2) @ b),
    "broadcast": ("a: pl.Tensor[[1, 16, 64], pl.FP32], b: pl.Tensor[[3, 64, 16], pl.FP32]", [3, 16, 16],
                  "c = pl.matmul(a, b)", np.matmul),
    "batch_of_one": ("a: pl.Tensor[[1, 16, 32], pl.FP32], b: pl.Tensor[[1, 32, 16], pl.FP32]", [1, 16, 16],
                     "c = pl.add(pl.matmul(a, b), 1.0)", lambda a, b: np.matmul(a, b) + 1.0),
    "4d_then_exp": ("a: pl.Tensor[[2, 2, 16, 32], pl.FP32], b: pl.Tensor[[2, 2, 32, 16], pl.FP32]", [2, 2, 16, 16],
                    "c = pl.mul(pl.matmul(a, b), 0.5)", lambda a, b: np.matmul(a, b) * 0.5),
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", sorted(MATMULS))
def test_a_batched_matmul_through_the_default_pipeline_is_numpys_matmul(backend, case):
    params, out, body, formula = MATMULS[case]
    matches_numpy(orchestrated(params, f"pl.Tensor[{out}, pl.FP32]", body), formula, backend)


# -- batch-only reshape wrappers ----------------------------------------------------------------------------
WRAPPED_OPERAND = f'''
{KERNEL}
def k(a: pl.Tensor[[2, 3, 16, 32], pl.BF16], b: pl.Tensor[[6, 32, 16], pl.BF16], o: pl.Out[pl.Tensor[[6, 16, 16], pl.FP32]]) -> pl.Tensor[[6, 16, 16], pl.FP32]:
    a4: pl.Tile[[2, 3, 16, 32], pl.BF16, pl.Mem.Mat] = pl.tile.load(a, [0, 0, 0, 0], [2, 3, 16, 32], [2, 3, 16, 32], target_memory=pl.Mem.Mat)
    a3: pl.Tile[[6, 16, 32], pl.BF16, pl.Mem.Mat] = pl.tile.reshape(a4, [6, 16, 32])
    b3: pl.Tile[[6, 32, 16], pl.BF16, pl.Mem.Mat] = pl.tile.load(b, [0, 0, 0], [6, 32, 16], [6, 32, 16], target_memory=pl.Mem.Mat)
    c: pl.Tile[[6, 16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.batch_matmul(a3, b3)
    o1: pl.Tensor[[6, 16, 16], pl.FP32] = pl.tile.store(c, [0, 0, 0], o)
    return o1
'''


def test_a_batch_only_reshape_around_a_product_operand_is_peeled():
    """[2, 3, 16, 32] -> [6, 16, 32] keeps every page in place: the product's pages are slices of the load
    itself and the wrapper goes (PyPTO's peeling); the same results before and after."""
    after = flatten(WRAPPED_OPERAND)
    text = ir.python_print(after)
    assert "pl.tile.reshape(" not in text, text
    assert "lhs_slice_5: pl.Tile[[16, 32], pl.BF16, pl.Mem.Mat] = pl.tile.slice(a4, [16, 32], [80, 0])" in text, text


def test_a_reshape_that_changes_the_matrices_is_not_peeled():
    """[2, 3, 16, 32] -> [6, 32, 16]: the last two dims differ, the wrapper stays and the pages are its slices."""
    src = WRAPPED_OPERAND.replace("[6, 16, 32]", "[6, 32, 16]").replace(
        "b: pl.Tensor[[6, 32, 16], pl.BF16]", "b: pl.Tensor[[6, 16, 16], pl.BF16]").replace(
        "b3: pl.Tile[[6, 32, 16], pl.BF16, pl.Mem.Mat] = pl.tile.load(b, [0, 0, 0], [6, 32, 16], [6, 32, 16]",
        "b3: pl.Tile[[6, 16, 16], pl.BF16, pl.Mem.Mat] = pl.tile.load(b, [0, 0, 0], [6, 16, 16], [6, 16, 16]").replace(
        "pl.Tile[[6, 16, 16], pl.FP32, pl.Mem.Acc]", "pl.Tile[[6, 32, 16], pl.FP32, pl.Mem.Acc]").replace(
        "o: pl.Out[pl.Tensor[[6, 16, 16], pl.FP32]]) -> pl.Tensor[[6, 16, 16], pl.FP32]",
        "o: pl.Out[pl.Tensor[[6, 32, 16], pl.FP32]]) -> pl.Tensor[[6, 32, 16], pl.FP32]").replace(
        "o1: pl.Tensor[[6, 16, 16], pl.FP32]", "o1: pl.Tensor[[6, 32, 16], pl.FP32]")
    text = ir.python_print(flatten(src))
    assert "pl.tile.reshape(a4" in text and "pl.tile.slice(a3, [32, 16]" in text, text


def test_a_transposed_operand_behind_a_batch_only_reshape_is_read_column_batched():
    flatten(f'''
{KERNEL}
def k(a: pl.Tensor[[2, 3, 32, 16], pl.BF16], b: pl.Tensor[[6, 32, 16], pl.BF16], o: pl.Out[pl.Tensor[[6, 16, 16], pl.FP32]]) -> pl.Tensor[[6, 16, 16], pl.FP32]:
    a4: pl.Tile[[2, 3, 32, 16], pl.BF16, pl.Mem.Mat] = pl.tile.load(a, [0, 0, 0, 0], [2, 3, 32, 16], [2, 3, 32, 16], target_memory=pl.Mem.Mat)
    a4t: pl.Tile[[2, 3, 16, 32], pl.BF16, pl.Mem.Mat, pl.TileView(blayout=pl.TileLayout.row_major, slayout=pl.TileLayout.col_major)] = pl.tile.transpose_view(a4)
    a3: pl.Tile[[6, 16, 32], pl.BF16, pl.Mem.Mat, pl.TileView(blayout=pl.TileLayout.row_major, slayout=pl.TileLayout.col_major)] = pl.tile.reshape(a4t, [6, 16, 32])
    b3: pl.Tile[[6, 32, 16], pl.BF16, pl.Mem.Mat] = pl.tile.load(b, [0, 0, 0], [6, 32, 16], [6, 32, 16], target_memory=pl.Mem.Mat)
    c: pl.Tile[[6, 16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.batch_matmul(a3, b3)
    o1: pl.Tensor[[6, 16, 16], pl.FP32] = pl.tile.store(c, [0, 0, 0], o)
    return o1
''')


TRANSPOSED_VIEW_READ = f'''
{KERNEL}
def k(a: pl.Tensor[[2, 32, 16], pl.FP32], o: pl.Out[pl.Tensor[[2, 16, 32], pl.FP32]]) -> pl.Tensor[[2, 16, 32], pl.FP32]:
    a3: pl.Tile[[2, 32, 16], pl.FP32, pl.Mem.Mat] = pl.tile.load(a, [0, 0, 0], [2, 32, 16], [2, 32, 16], target_memory=pl.Mem.Mat)
    a3t: pl.Tile[[2, 16, 32], pl.FP32, pl.Mem.Mat, pl.TileView(blayout=pl.TileLayout.row_major, slayout=pl.TileLayout.col_major)] = pl.tile.transpose_view(a3)
    READ
    o1: pl.Tensor[[2, 16, 32], pl.FP32] = pl.tile.store(v, [0, 0, 0], o)
    return o1
'''


@pytest.mark.parametrize("read", [
    "v: pl.Tile[[2, 16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.move(a3t, target_memory=pl.Mem.Vec)",
    "v: pl.Tile[[2, 16, 32], pl.FP32, pl.Mem.Mat] = pl.tile.slice(a3t, [2, 16, 32], [0, 0, 0])",
    # a reshape that regroups the matrices
    "v: pl.Tile[[2, 16, 32], pl.FP32, pl.Mem.Mat] = pl.tile.reshape(pl.tile.reshape(a3t, [2, 32, 16]), [2, 16, 32])",
], ids=["move", "slice", "regrouping-reshape"])
def test_an_op_reading_an_nd_transposed_view_is_refused_not_misread(read):
    """Flattened, an N-D transpose_view's pages lie side by side: any op but a batched matmul (or a batch-only
    reshape) would read the wrong elements, so the pass refuses it, located."""
    before = pl.parse(program(TRANSPOSED_VIEW_READ.replace("READ", read)))
    with pytest.raises(ValueError, match=r"(an N-D transposed view|changes its matrices).*reshape"):
        passes.flatten_tile_nd_to_2d()(before)

"""FlattenTileNdTo2D in PyPTO's printed forms (docs/passes/flatten_tile_nd_to_2d.md): natural NZ Mat loads read
a 2-D view of their tensor, stores into N-D tensors carry their partition, a valid region that is a row-major
prefix of the merged rows flattens, and PyPTO's printed output (a 2-D annotation on a load with N-D operands)
parses and runs here. Every case runs on the machine before and after."""

from __future__ import annotations

import numpy as np
import pytest

import pypto.language as pl
from pypto import ir, passes
from pypto_core.interp import make_inputs, run_program
from pypto_core.interp.errors import MachineError

from .helpers import HEADER, same_results

KERNEL = "@pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)"


def program(*functions: str, header: str = HEADER) -> str:
    body = "\n".join("\n".join("    " + line for line in f.strip("\n").splitlines()) for f in functions)
    return f"{header}@pl.program\nclass P:\n{body}\n"


def flatten(before_src: str, expected_src: str, header: str = HEADER, inputs: dict | None = None) -> ir.Program:
    """The pass's output equals `expected_src` and computes what its input does (from `inputs` when the
    generated ones would be out of range, e.g. a batch index)."""
    before = pl.parse(program(before_src, header=header))
    after = passes.flatten_tile_nd_to_2d()(before)
    ir.assert_structural_equal(after, pl.parse(program(expected_src, header=header)))
    if inputs is None:
        same_results(before, after)
    else:
        want = run_program(before, {k: np.copy(v) for k, v in inputs.items()}, "k")
        got = run_program(after, {k: np.copy(v) for k, v in inputs.items()}, "k")
        for name in want:
            np.testing.assert_array_equal(np.asarray(got[name]), np.asarray(want[name]))
    return after


@pytest.mark.parametrize(("offsets", "row"), [("[0, 0, 0]", "0"), ("[1, 0, 0]", "16"), ("[1, 8, 32]", "24")])
def test_a_natural_nz_mat_load_reads_a_2d_view_of_its_tensor_at_the_merged_row(offsets, row):
    col = offsets.strip("[]").split(", ")[-1]
    flatten(f'''
{KERNEL}
def k(a: pl.Tensor[[2, 16, 64], pl.BF16], o: pl.Out[pl.Tensor[[8, 32], pl.FP32]]) -> pl.Tensor[[8, 32], pl.FP32]:
    t: pl.Tile[[1, 8, 32], pl.BF16, pl.Mem.Mat] = pl.tile.load(a, {offsets}, [1, 8, 32], [1, 8, 32], target_memory=pl.Mem.Mat)
    r: pl.Tile[[1, 8, 32], pl.BF16, pl.Mem.Vec] = pl.tile.move(t, target_memory=pl.Mem.Vec)
    f: pl.Tile[[1, 8, 32], pl.FP32, pl.Mem.Vec] = pl.tile.cast(r, target_type=pl.FP32)
    g: pl.Tile[[8, 32], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(f, [8, 32])
    o2: pl.Tensor[[8, 32], pl.FP32] = pl.tile.store(g, [0, 0], o)
    return o2
''', f'''
{KERNEL}
def k(a: pl.Tensor[[2, 16, 64], pl.BF16], o: pl.Out[pl.Tensor[[8, 32], pl.FP32]]) -> pl.Tensor[[8, 32], pl.FP32]:
    t_view2d: pl.Tensor[[32, 64], pl.BF16, pl.TensorView(stride=[64, 1], layout=pl.TensorLayout.ND)] = pl.tensor.view(a, [32, 64])
    t: pl.Tile[[8, 32], pl.BF16, pl.Mem.Mat] = pl.tile.load(t_view2d, [{row}, {col}], [8, 32], [8, 32], target_memory=pl.Mem.Mat)
    r: pl.Tile[[8, 32], pl.BF16, pl.Mem.Vec] = pl.tile.move(t, target_memory=pl.Mem.Vec)
    f: pl.Tile[[8, 32], pl.FP32, pl.Mem.Vec] = pl.tile.cast(r, target_type=pl.FP32)
    g: pl.Tile[[8, 32], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(f, [8, 32])
    o2: pl.Tensor[[8, 32], pl.FP32] = pl.tile.store(g, [0, 0], o)
    return o2
''')


def test_a_vec_load_keeps_its_nd_window_and_the_store_gets_the_tiles_partition():
    flatten(f'''
{KERNEL}
def k(x: pl.Tensor[[4, 3, 64], pl.FP32], o: pl.Out[pl.Tensor[[4, 3, 64], pl.FP32]]) -> pl.Tensor[[4, 3, 64], pl.FP32]:
    t: pl.Tile[[2, 3, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [2, 0, 0], [2, 3, 64], [2, 3, 64], target_memory=pl.Mem.Vec)
    u: pl.Tile[[2, 3, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t)
    o2: pl.Tensor[[4, 3, 64], pl.FP32] = pl.tile.store(u, [0, 0, 0], o)
    return o2
''', f'''
{KERNEL}
def k(x: pl.Tensor[[4, 3, 64], pl.FP32], o: pl.Out[pl.Tensor[[4, 3, 64], pl.FP32]]) -> pl.Tensor[[4, 3, 64], pl.FP32]:
    t: pl.Tile[[6, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [2, 0, 0], [2, 3, 64], [6, 64], target_memory=pl.Mem.Vec)
    u: pl.Tile[[6, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t)
    o2: pl.Tensor[[4, 3, 64], pl.FP32] = pl.tile.store(u, [0, 0, 0], o, [2, 3, 64])
    return o2
''')


DYNAMIC = 'S = pl.dynamic("S")\n\n'


def test_example_5_a_dynamic_valid_extent_after_unit_dims_flattens_and_the_store_writes_only_valid_rows():
    # flatten_tile_nd_to_2d.md example 5 (k): [1, v, 64] of a [1, 16, 64] tile is [v, 64]. S = 40: the last
    # chunk has 8 valid rows; the store writes them and nothing past the tensor's end.
    x = np.arange(2 * 40 * 64, dtype=np.float32).reshape(2, 40, 64) / 1000
    inputs = {"x": x, "o": np.full((2, 40, 64), 7.0, dtype=np.float32), "b": np.int64(1)}
    after = flatten(f'''
{KERNEL}
def k(x: pl.Tensor[[2, S, 64], pl.FP32], o: pl.Out[pl.Tensor[[2, S, 64], pl.FP32]], b: pl.Scalar[pl.INDEX]) -> pl.Tensor[[2, S, 64], pl.FP32]:
    for c, (oi,) in pl.range(0, S, 16, init_values=(o,)):
        v: pl.Scalar[pl.INDEX] = pl.min(16, S - c)
        t: pl.Tile[[1, 16, 64], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[1, v, 64])] = pl.tile.load(x, [b, c, 0], [1, 16, 64], [1, v, 64], target_memory=pl.Mem.Vec)
        u: pl.Tile[[1, 16, 64], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[1, v, 64])] = pl.tile.exp(t)
        o3: pl.Tensor[[2, S, 64], pl.FP32] = pl.tile.store(u, [b, c, 0], oi)
        o4: pl.Tensor[[2, S, 64], pl.FP32] = pl.yield_(o3)
    return o4
''', f'''
{KERNEL}
def k(x: pl.Tensor[[2, S, 64], pl.FP32], o: pl.Out[pl.Tensor[[2, S, 64], pl.FP32]], b: pl.Scalar[pl.INDEX]) -> pl.Tensor[[2, S, 64], pl.FP32]:
    for c, (oi,) in pl.range(0, S, 16, init_values=(o,)):
        v: pl.Scalar[pl.INDEX] = pl.min(16, S - c)
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[v, 64])] = pl.tile.load(x, [b, c, 0], [1, 16, 64], [v, 64], target_memory=pl.Mem.Vec)
        u: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[v, 64])] = pl.tile.exp(t)
        o3: pl.Tensor[[2, S, 64], pl.FP32] = pl.tile.store(u, [b, c, 0], oi, [1, 16, 64])
        o4: pl.Tensor[[2, S, 64], pl.FP32] = pl.yield_(o3)
    return o4
''', header=HEADER + DYNAMIC, inputs=inputs)
    out = run_program(after, {k: np.copy(v) for k, v in inputs.items()}, "k")
    got = np.asarray(out["o"])
    np.testing.assert_allclose(got[1], np.exp(x[1]), rtol=1e-6)
    np.testing.assert_array_equal(got[0], 7.0)


def test_a_partly_valid_middle_dim_below_a_non_unit_dim_is_a_located_error():
    src = program(f'''
{KERNEL}
def k(x: pl.Tensor[[2, 16, 64], pl.FP32], o: pl.Out[pl.Tensor[[2, 16, 64], pl.FP32]], v: pl.Scalar[pl.INDEX]) -> pl.Tensor[[2, 16, 64], pl.FP32]:
    t: pl.Tile[[2, 16, 64], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[2, v, 64])] = pl.tile.load(x, [0, 0, 0], [2, 16, 64], [2, v, 64], target_memory=pl.Mem.Vec)
    o2: pl.Tensor[[2, 16, 64], pl.FP32] = pl.tile.store(t, [0, 0, 0], o)
    return o2
''')
    with pytest.raises(ValueError, match=r"not whole rows once the leading dims merge \(dim 1 is only partly valid\)"):
        passes.flatten_tile_nd_to_2d()(pl.parse(src, "k.py"))


EXAMPLE_1_OUTPUT = f'''
{KERNEL}
def main_incore_0(x__ssa_v0: pl.Tensor[[2, 3, 64], pl.FP32], ret0__out: pl.Out[pl.Tensor[[2, 3, 64], pl.FP32]], ret1__out: pl.Out[pl.Tensor[[2, 3, 1], pl.FP32]]) -> tuple[pl.Tensor[[2, 3, 64], pl.FP32], pl.Tensor[[2, 3, 1], pl.FP32]]:
    x__tile: pl.Tile[[6, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x__ssa_v0, [0, 0, 0], [2, 3, 64], [2, 3, 64], target_memory=pl.Mem.Vec)
    y__tile: pl.Tile[[6, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(x__tile)
    tmp_tile: pl.Tile[[6, 128], pl.FP32, pl.Mem.Vec] = pl.tile.create([6, 128], dtype=pl.FP32, target_memory=pl.Mem.Vec)
    s__tile: pl.Tile[[6, 1], pl.FP32, pl.Mem.Vec] = pl.tile.row_sum(y__tile, tmp_tile)
    ret0__store: pl.Tensor[[2, 3, 64], pl.FP32] = pl.tile.store(y__tile, [0, 0, 0], ret0__out, [2, 3, 64])
    ret1__store: pl.Tensor[[2, 3, 1], pl.FP32] = pl.tile.store(s__tile, [0, 0, 0], ret1__out, [2, 3, 1])
    return ret0__store, ret1__store
'''


def test_pyptos_printed_example_1_output_parses_and_computes_exp_and_row_sums():
    # A 2-D annotation on a load with N-D operands types the value as its leading dims merged.
    after = pl.parse(program(EXAMPLE_1_OUTPUT))
    load = after.get_function("main_incore_0").body.stmts[0]
    assert [int(d.value) for d in load.var.type.shape] == [6, 64]
    assert [int(d.value) for d in load.value.type.shape] == [6, 64]
    inputs = make_inputs(after.get_function("main_incore_0"), seed=2)
    x = np.copy(inputs["x"])
    out = run_program(after, inputs, "main_incore_0")
    np.testing.assert_allclose(np.asarray(out["ret0"]), np.exp(x), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(out["ret1"]), np.exp(x).sum(-1, keepdims=True), rtol=1e-5)


def test_a_2d_annotation_that_is_no_flattening_is_still_refused():
    bad = EXAMPLE_1_OUTPUT.replace("x__tile: pl.Tile[[6, 64]", "x__tile: pl.Tile[[3, 128]")
    with pytest.raises(ValueError, match=r"does not match the value's type"):
        pl.parse(program(bad))


def test_the_machine_refuses_valid_rows_that_are_no_block_of_the_partition():
    src = program(f'''
{KERNEL}
def k(x: pl.Tensor[[16, 64], pl.FP32], o: pl.Out[pl.Tensor[[2, 8, 64], pl.FP32]]) -> pl.Tensor[[2, 8, 64], pl.FP32]:
    t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[12, 64])] = pl.tile.load(x, [0, 0], [16, 64], [12, 64], target_memory=pl.Mem.Vec)
    o2: pl.Tensor[[2, 8, 64], pl.FP32] = pl.tile.store(t, [0, 0, 0], o, [2, 8, 64])
    return o2
''')
    p = pl.parse(src)
    inputs = make_inputs(p.get_function("k"), seed=0)
    with pytest.raises(MachineError, match=r"the 12 valid rows of the tile are not a block of its \[2, 8, 64\] partition"):
        run_program(p, inputs, "k")


# -- batched products past the backend's Mat size: per-batch reloads (flatten_tile_nd_to_2d.md, example 6) -------
EXAMPLE_6 = f'''
{KERNEL}
def k1(a__ssa_v0: pl.Tensor[[2, 128, 256], pl.BF16], b__ssa_v0: pl.Tensor[[2, 512, 256], pl.BF16], o__ssa_v0: pl.Out[pl.Tensor[[2, 128, 512], pl.FP32]]) -> pl.Tensor[[2, 128, 512], pl.FP32]:
    ta__ssa_v0: pl.Tile[[2, 128, 256], pl.BF16, pl.Mem.Mat] = pl.tile.load(a__ssa_v0, [0, 0, 0], [2, 128, 256], [2, 128, 256], target_memory=pl.Mem.Mat)
    tb__ssa_v0: pl.Tile[[2, 512, 256], pl.BF16, pl.Mem.Mat] = pl.tile.load(b__ssa_v0, [0, 0, 0], [2, 512, 256], [2, 512, 256], target_memory=pl.Mem.Mat)
    tbt__ssa_v0: pl.Tile[[2, 256, 512], pl.BF16, pl.Mem.Mat, pl.TileView(blayout=pl.TileLayout.row_major, slayout=pl.TileLayout.col_major)] = pl.tile.transpose_view(tb__ssa_v0)
    c__ssa_v0: pl.Tile[[2, 128, 512], pl.FP32, pl.Mem.Acc] = pl.tile.batch_matmul(ta__ssa_v0, tbt__ssa_v0)
    o__ssa_v1: pl.Tensor[[2, 128, 512], pl.FP32] = pl.tile.store(c__ssa_v0, [0, 0, 0], o__ssa_v0)
    return o__ssa_v1
'''

EXAMPLE_6_OUTPUT = f'''
{KERNEL}
def k1(a__ssa_v0: pl.Tensor[[2, 128, 256], pl.BF16], b__ssa_v0: pl.Tensor[[2, 512, 256], pl.BF16], o__ssa_v0: pl.Out[pl.Tensor[[2, 128, 512], pl.FP32]]) -> pl.Tensor[[2, 128, 512], pl.FP32]:
    lhs_pbview2d_0: pl.Tensor[[256, 256], pl.BF16, pl.TensorView(stride=[256, 1], layout=pl.TensorLayout.ND)] = pl.tensor.view(a__ssa_v0, [256, 256])
    lhs_pbload_0: pl.Tile[[128, 256], pl.BF16, pl.Mem.Mat] = pl.tile.load(lhs_pbview2d_0, [0, 0], [128, 256], [128, 256], target_memory=pl.Mem.Mat)
    rhs_pbview2d_0: pl.Tensor[[1024, 256], pl.BF16, pl.TensorView(stride=[256, 1], layout=pl.TensorLayout.ND)] = pl.tensor.view(b__ssa_v0, [1024, 256])
    rhs_pbload_0: pl.Tile[[512, 256], pl.BF16, pl.Mem.Mat] = pl.tile.load(rhs_pbview2d_0, [0, 0], [512, 256], [512, 256], target_memory=pl.Mem.Mat)
    rhs_pbview_0: pl.Tile[[256, 512], pl.BF16, pl.Mem.Mat, pl.TileView(blayout=pl.TileLayout.row_major, slayout=pl.TileLayout.col_major)] = pl.tile.transpose_view(rhs_pbload_0)
    matmul_0: pl.Tile[[128, 512], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(lhs_pbload_0, rhs_pbview_0)
    o__ssa_v1_0: pl.Tensor[[2, 128, 512], pl.FP32] = pl.tile.store(matmul_0, [0, 0, 0], o__ssa_v0, [1, 128, 512])
    lhs_pbview2d_1: pl.Tensor[[256, 256], pl.BF16, pl.TensorView(stride=[256, 1], layout=pl.TensorLayout.ND)] = pl.tensor.view(a__ssa_v0, [256, 256])
    lhs_pbload_1: pl.Tile[[128, 256], pl.BF16, pl.Mem.Mat] = pl.tile.load(lhs_pbview2d_1, [128, 0], [128, 256], [128, 256], target_memory=pl.Mem.Mat)
    rhs_pbview2d_1: pl.Tensor[[1024, 256], pl.BF16, pl.TensorView(stride=[256, 1], layout=pl.TensorLayout.ND)] = pl.tensor.view(b__ssa_v0, [1024, 256])
    rhs_pbload_1: pl.Tile[[512, 256], pl.BF16, pl.Mem.Mat] = pl.tile.load(rhs_pbview2d_1, [512, 0], [512, 256], [512, 256], target_memory=pl.Mem.Mat)
    rhs_pbview_1: pl.Tile[[256, 512], pl.BF16, pl.Mem.Mat, pl.TileView(blayout=pl.TileLayout.row_major, slayout=pl.TileLayout.col_major)] = pl.tile.transpose_view(rhs_pbload_1)
    matmul_1: pl.Tile[[128, 512], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(lhs_pbload_1, rhs_pbview_1)
    o__ssa_v1_1: pl.Tensor[[2, 128, 512], pl.FP32] = pl.tile.store(matmul_1, [1, 0, 0], o__ssa_v1_0, [1, 128, 512])
    return o__ssa_v1_1
'''


def flatten_on(backend: str | None, src: str) -> tuple[ir.Program, ir.Program]:
    before = pl.parse(program(src))
    with passes.PassContext([], backend=backend):
        after = passes.flatten_tile_nd_to_2d()(before)
    same_results(before, after, backend=backend)
    return before, after


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
def test_example_6_operands_past_the_mat_size_are_reloaded_per_batch_and_the_whole_loads_dropped(backend):
    _, after = flatten_on(backend, EXAMPLE_6)
    ir.assert_structural_equal(after, pl.parse(program(EXAMPLE_6_OUTPUT)))


def test_without_a_backend_or_within_the_mat_size_the_operands_stay_whole_and_are_sliced():
    _, after = flatten_on(None, EXAMPLE_6)
    text = ir.python_print(after)
    assert "pbload" not in text and "lhs_slice_1" in text and "ta__ssa_v0_view2d" in text
    small = EXAMPLE_6.replace("512", "64").replace("[2, 128, 64]", "[2, 128, 64]")
    _, after = flatten_on("Ascend910B", small)
    assert "pbload" not in ir.python_print(after)


def test_a_whole_operand_read_elsewhere_is_reloaded_per_batch_but_kept():
    src = EXAMPLE_6.replace(
        "    o__ssa_v1: pl.Tensor[[2, 128, 512], pl.FP32] = pl.tile.store(c__ssa_v0, [0, 0, 0], o__ssa_v0)\n    return o__ssa_v1",
        "    o__ssa_v1: pl.Tensor[[2, 128, 512], pl.FP32] = pl.tile.store(c__ssa_v0, [0, 0, 0], o__ssa_v0)\n"
        "    va: pl.Tile[[2, 128, 256], pl.BF16, pl.Mem.Vec] = pl.tile.move(ta__ssa_v0, target_memory=pl.Mem.Vec)\n"
        "    return o__ssa_v1")
    _, after = flatten_on("Ascend910B", src)
    text = ir.python_print(after)
    assert "lhs_pbload_1" in text and "ta__ssa_v0: pl.Tile[[256, 256]" in text
    assert "tb__ssa_v0" not in text and "tbt__ssa_v0" not in text


def test_a_broadcast_operand_past_the_mat_size_reloads_its_one_page_for_every_batch():
    src = f'''
{KERNEL}
def k(a: pl.Tensor[[1, 256, 256], pl.BF16], b: pl.Tensor[[4, 256, 256], pl.BF16], o: pl.Out[pl.Tensor[[4, 256, 256], pl.FP32]]) -> pl.Tensor[[4, 256, 256], pl.FP32]:
    ta: pl.Tile[[1, 256, 256], pl.BF16, pl.Mem.Mat] = pl.tile.load(a, [0, 0, 0], [1, 256, 256], [1, 256, 256], target_memory=pl.Mem.Mat)
    tb: pl.Tile[[4, 256, 256], pl.BF16, pl.Mem.Mat] = pl.tile.load(b, [0, 0, 0], [4, 256, 256], [4, 256, 256], target_memory=pl.Mem.Mat)
    c: pl.Tile[[4, 256, 256], pl.FP32, pl.Mem.Acc] = pl.tile.batch_matmul(ta, tb)
    o2: pl.Tensor[[4, 256, 256], pl.FP32] = pl.tile.store(c, [0, 0, 0], o)
    return o2
'''
    _, after = flatten_on("Ascend910B", src)
    loads = [line.strip() for line in ir.python_print(after).splitlines() if "pl.tile.load(" in line]
    assert [line.split(" = pl.tile.load(")[1].split("], [")[0] for line in loads] == [
        "lhs_pbview2d_0, [0, 0", "rhs_pbview2d_0, [0, 0", "lhs_pbview2d_0_1, [0, 0", "rhs_pbview2d_1, [256, 0",
        "lhs_pbview2d_0_2, [0, 0", "rhs_pbview2d_2, [512, 0", "lhs_pbview2d_0_3, [0, 0", "rhs_pbview2d_3, [768, 0"]


def test_pypto_example_4_an_nd_transpose_names_its_result_create_after_the_result():
    """PyPTO's example 4: the [B*b, a] result's tile.create takes the transpose's own name, each page's assemble
    `<name>_1`, `<name>_2`, and the store into the 3-D tensor gets the partition (the Vec load's valid operand is
    2-D here, the documented deviation)."""
    after = flatten(f'''
{KERNEL}
def k(x: pl.Tensor[[2, 8, 16], pl.FP32], o: pl.Out[pl.Tensor[[2, 16, 8], pl.FP32]]) -> pl.Tensor[[2, 16, 8], pl.FP32]:
    t: pl.Tile[[2, 8, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0, 0], [2, 8, 16], [2, 8, 16], target_memory=pl.Mem.Vec)
    u: pl.Tile[[2, 16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.transpose(t, 1, 2)
    o1: pl.Tensor[[2, 16, 8], pl.FP32] = pl.tile.store(u, [0, 0, 0], o)
    return o1
''', f'''
{KERNEL}
def k(x: pl.Tensor[[2, 8, 16], pl.FP32], o: pl.Out[pl.Tensor[[2, 16, 8], pl.FP32]]) -> pl.Tensor[[2, 16, 8], pl.FP32]:
    t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0, 0], [2, 8, 16], [16, 16], target_memory=pl.Mem.Vec)
    u: pl.Tile[[32, 8], pl.FP32, pl.Mem.Vec] = pl.tile.create([32, 8], dtype=pl.FP32, target_memory=pl.Mem.Vec)
    trans_tmp_pool: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.create([16, 16], dtype=pl.FP32, target_memory=pl.Mem.Vec)
    trans_page_0: pl.Tile[[8, 16], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [8, 16], [0, 0])
    trans_tmp_0: pl.Tile[[8, 16], pl.FP32, pl.Mem.Vec] = pl.tile.slice(trans_tmp_pool, [8, 16], [0, 0])
    trans_0: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.transpose(trans_page_0, 0, 1, trans_tmp_0)
    u_1: pl.Tile[[32, 8], pl.FP32, pl.Mem.Vec] = pl.tile.assemble(u, trans_0, [0, 0])
    trans_page_1: pl.Tile[[8, 16], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [8, 16], [8, 0])
    trans_tmp_1: pl.Tile[[8, 16], pl.FP32, pl.Mem.Vec] = pl.tile.slice(trans_tmp_pool, [8, 16], [8, 0])
    trans_1: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.transpose(trans_page_1, 0, 1, trans_tmp_1)
    u_2: pl.Tile[[32, 8], pl.FP32, pl.Mem.Vec] = pl.tile.assemble(u_1, trans_1, [16, 0])
    o1: pl.Tensor[[2, 16, 8], pl.FP32] = pl.tile.store(u_2, [0, 0, 0], o, [2, 16, 8])
    return o1
''')
    names = [line.split(":")[0].strip() for line in ir.python_print(after, format=False).splitlines() if " = " in line]
    assert names[1] == "u" and names[6] == "u_1" and names[10] == "u_2", names


@pytest.mark.parametrize(("space", "scratch_space"), [("pl.Mem.Vec", "pl.Mem.Vec"), ("pl.Mem.Mat", "pl.Mem.Mat")])
def test_a_3_arg_2d_transpose_gets_its_scratch_in_its_input_space(space, scratch_space):
    load_space = "pl.Mem.Vec" if space == "pl.Mem.Vec" else "pl.Mem.Mat"
    flatten(f'''
{KERNEL}
def k(x: pl.Tensor[[8, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 8], pl.FP32]]) -> pl.Tensor[[16, 8], pl.FP32]:
    t: pl.Tile[[8, 16], pl.FP32, {space}] = pl.tile.load(x, [0, 0], [8, 16], [8, 16], target_memory={load_space})
    u: pl.Tile[[16, 8], pl.FP32, {space}] = pl.tile.transpose(t, 0, 1)
    v: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.move(u, target_memory=pl.Mem.Vec)
    o1: pl.Tensor[[16, 8], pl.FP32] = pl.tile.store(v, [0, 0], o)
    return o1
''', f'''
{KERNEL}
def k(x: pl.Tensor[[8, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 8], pl.FP32]]) -> pl.Tensor[[16, 8], pl.FP32]:
    t: pl.Tile[[8, 16], pl.FP32, {space}] = pl.tile.load(x, [0, 0], [8, 16], [8, 16], target_memory={load_space})
    transpose_tmp: pl.Tile[[8, 16], pl.FP32, {scratch_space}] = pl.tile.create([8, 16], dtype=pl.FP32, target_memory={scratch_space})
    u: pl.Tile[[16, 8], pl.FP32, {space}] = pl.tile.transpose(t, 0, 1, transpose_tmp)
    v: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.move(u, target_memory=pl.Mem.Vec)
    o1: pl.Tensor[[16, 8], pl.FP32] = pl.tile.store(v, [0, 0], o)
    return o1
''')


def test_a_4_arg_transpose_is_left_alone_and_the_pass_is_idempotent_on_it():
    src = program(f'''
{KERNEL}
def k(x: pl.Tensor[[8, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 8], pl.FP32]]) -> pl.Tensor[[16, 8], pl.FP32]:
    t: pl.Tile[[8, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [8, 16], [8, 16], target_memory=pl.Mem.Vec)
    u: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.transpose(t, 0, 1)
    o1: pl.Tensor[[16, 8], pl.FP32] = pl.tile.store(u, [0, 0], o)
    return o1
''')
    once = passes.flatten_tile_nd_to_2d()(pl.parse(src))
    ir.assert_structural_equal(passes.flatten_tile_nd_to_2d()(once), once)

"""The boxes of a matmul operand's layout (docs/passes/auto_tile_matmul_l0.md, boxed layouts): a box is one fractal,
16 rows of `fractal / 16` bytes in NZ (Mat, Left), the transpose in ZN (Right), none for Vec's `none_box`; the
chooser counts an L0 tile's padded boxes, and a bias matmul whose M / N / K are not whole boxes is left as written
(PH-AT-011)."""

from __future__ import annotations

import pytest

import pypto.language as pl
from pypto import ir
from pypto_core.backend.registry import get_backend
from pypto_core.ir.enums import MemorySpace, TileLayout
from pypto_core.ir.types import TileType, TileView
from pypto_plugins.pass_matmul.chooser_config import backend_config
from pypto_plugins.pass_matmul.l0_rewrite.boxes import box_alignments, box_shape, unboxed_dims
from pypto_plugins.pass_matmul.l0_tile_chooser import choose_l0_tile
from pypto_plugins.pass_matmul.tests.helpers import kernel, parse, run_pass, same_results_reordered


def backend(name: str = "Ascend910B"):  # type: ignore[no-untyped-def]
    return get_backend(name)


def tile(shape: list[int], dtype: object, space: MemorySpace, view: TileView | None = None) -> TileType:
    return TileType(shape, dtype, None, view, space)  # type: ignore[arg-type]


@pytest.mark.parametrize(("dtype", "space", "box"), [
    (pl.BF16, MemorySpace.Mat, (16, 16)),
    (pl.INT8, MemorySpace.Mat, (16, 32)),
    (pl.FP32, MemorySpace.Mat, (16, 8)),
    (pl.INT8, MemorySpace.Left, (16, 32)),
    (pl.INT8, MemorySpace.Right, (32, 16)),  # ZN: the transpose
    (pl.FP32, MemorySpace.Acc, (16, 16)),  # a 1024-byte fractal
    (pl.INT8, MemorySpace.Vec, (16, 32)),  # a Vec left operand is moved to Mat first: Mat's box
])
def test_the_box_of_each_layout(dtype, space, box):
    assert box_shape(tile([64, 64], dtype, space), backend()) == box


def test_a_none_box_view_has_no_box():
    view = TileView(blayout=TileLayout.row_major, slayout=TileLayout.none_box)
    assert box_shape(tile([64, 64], pl.INT8, MemorySpace.Mat, view), backend()) == (1, 1)


def test_the_chooser_counts_an_int8_right_tiles_padded_columns():
    """[16, 1344] x [1344, 48] INT8: 48 columns occupy two 32-column boxes, so a double-buffered Right slab of k
    rows takes k * 64 * 2 bytes of L0B's 64 KiB: k = 448 (k = 672 counting the logical 48 columns overflows)."""
    lhs, rhs = tile([16, 1344], pl.INT8, MemorySpace.Mat), tile([1344, 48], pl.INT8, MemorySpace.Mat)
    assert box_alignments(lhs, rhs, backend()) == (16, 32)
    cfg = backend_config(backend(), 16, 48, 1344, pl.INT8, pl.INT8, pl.INT32, allow_stationary=True,
                         allow_double_buffer_c=False, c_read=False)
    cfg.box_align_m, cfg.box_align_n = box_alignments(lhs, rhs, backend())
    assert choose_l0_tile(cfg).k == 448
    cfg.box_align_n = 1
    assert choose_l0_tile(cfg).k == 672 and 672 * 64 * 2 > cfg.l0b_bytes


def test_dims_that_are_not_whole_boxes_are_named():
    lhs, rhs = tile([64, 48], pl.INT8, MemorySpace.Mat), tile([48, 48], pl.INT8, MemorySpace.Mat)
    assert unboxed_dims(lhs, rhs, 64, 48, 48, backend()) == ["N=48 (box 32)", "K=48 (box 32)"]
    assert unboxed_dims(tile([64, 64], pl.BF16, MemorySpace.Mat), tile([64, 48], pl.BF16, MemorySpace.Mat),
                        64, 48, 64, backend()) == []


def int8_bias_kernel(n: int):  # type: ignore[no-untyped-def]
    params = (f"a: pl.Tensor[[64, 1024], pl.INT8], b: pl.Tensor[[1024, {n}], pl.INT8], "
              f"bias: pl.Tensor[[1, {n}], pl.INT32], out: pl.Out[pl.Tensor[[64, {n}], pl.INT32]]")
    body = f"""        am: pl.Tile[[64, 1024], pl.INT8, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [64, 1024], target_memory=pl.Mem.Mat)
        bm: pl.Tile[[1024, {n}], pl.INT8, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [1024, {n}], target_memory=pl.Mem.Mat)
        biasm: pl.Tile[[1, {n}], pl.INT32, pl.Mem.Mat] = pl.tile.load(bias, [0, 0], [1, {n}], target_memory=pl.Mem.Mat)
        c: pl.Tile[[64, {n}], pl.INT32, pl.Mem.Acc] = pl.tile.matmul_bias(am, bm, biasm)
        out2: pl.Tensor[[64, {n}], pl.INT32] = pl.tile.store(c, [0, 0], out)"""
    return parse(kernel(body, params, f"pl.Tensor[[64, {n}], pl.INT32]"))


def test_a_bias_matmul_off_its_boxes_is_a_hint_and_left_as_written(capfd):
    before = int8_bias_kernel(48)
    assert run_pass(before, "Ascend910B") is before
    assert ("[perf_hint PH-AT-011] AutoTileMatmulL0: tile.matmul_bias: N=48 (box 32) not a multiple of the "
            "operands' boxed-layout alignment — left untouched.") in capfd.readouterr().err


def test_an_int8_product_is_tiled_within_l0b_counting_its_boxes():
    """[16, 1344] x [1344, 48] INT8: every double-buffered Right slab [k, 48] occupies k * 64 bytes (two 32-column
    boxes) and fits L0B (k = 448; the logical 48 columns would give 672, 86 KiB), and the rewrite computes the
    product exactly (INT32 accumulation)."""
    params = ("a: pl.Tensor[[16, 1344], pl.INT8], b: pl.Tensor[[1344, 48], pl.INT8], "
              "out: pl.Out[pl.Tensor[[16, 48], pl.INT32]]")
    body = """        am: pl.Tile[[16, 1344], pl.INT8, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [16, 1344], target_memory=pl.Mem.Mat)
        bm: pl.Tile[[1344, 48], pl.INT8, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [1344, 48], target_memory=pl.Mem.Mat)
        c: pl.Tile[[16, 48], pl.INT32, pl.Mem.Acc] = pl.tile.matmul(am, bm)
        out2: pl.Tensor[[16, 48], pl.INT32] = pl.tile.store(c, [0, 0], out)"""
    before = parse(kernel(body, params, "pl.Tensor[[16, 48], pl.INT32]"))
    after = run_pass(before, "Ascend910B")
    slabs = list(_right_tiles(after))
    assert slabs, ir.python_print(after)
    for k, n in slabs:
        assert n == 48 and k * 64 * 2 <= backend().capacity(MemorySpace.Right), (k, n)
    same_results_reordered(before, after, "Ascend910B")


def _right_tiles(program):  # type: ignore[no-untyped-def]
    from pypto_core.analysis.walk import walk
    from pypto_core.ir import stmt as S

    for node in walk(program):
        if isinstance(node, S.AssignStmt) and isinstance(node.var.type, TileType) and \
                node.var.type.memory_space is MemorySpace.Right:
            yield tuple(int(d.value) for d in node.var.type.shape)

"""AutoTileMatmulL0's streamed operand panels (docs/passes/auto_tile_matmul_l0.md, operand panels that do not
fit Mat): a panel Mat cannot keep next to the other panel, the Mat tiles live across the matmul and a grid's
scratch is loaded slab by slab from its GM window, the largest first, and its whole load dropped. Structural
(Before / Expected) and executed before and after on the reference machine."""

from __future__ import annotations

import pytest

from pypto import ir
from pypto_plugins.pass_matmul.tests.helpers import (
    BACKENDS,
    kernel,
    matmul_kernel,
    parse,
    run_pass,
    same_results_reordered,
)

K_ONLY_PARAMS = ("a: pl.Tensor[[32, 2048], pl.FP32], b: pl.Tensor[[2048, 128], pl.FP32], "
                 "out: pl.Out[pl.Tensor[[32, 128], pl.FP32]]")
K_ONLY_RET = "pl.Tensor[[32, 128], pl.FP32]"
K_ONLY_EXPECTED = """        am: pl.Tile[[32, 2048], pl.FP32, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [32, 2048], target_memory=pl.Mem.Mat)
        c_l0_init: pl.Tile[[32, 128], pl.FP32, pl.Mem.Acc] = pl.tile.create([32, 128], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        for c_l0_ko, (c_l0_c,) in pl.pipeline(0, 2048, 64, stage=2, init_values=(c_l0_init,)):
            c_l0_a: pl.Tile[[32, 64], pl.FP32, pl.Mem.Left, pl.TileView(blayout=pl.TileLayout.row_major)] = pl.tile.extract(am, 0, c_l0_ko, [32, 64], target_memory=pl.Mem.Left)
            c_l0_b_mat: pl.Tile[[64, 128], pl.FP32, pl.Mem.Mat] = pl.tile.load(b, [c_l0_ko, 0], [64, 128], [64, 128], target_memory=pl.Mem.Mat)
            c_l0_b: pl.Tile[[64, 128], pl.FP32, pl.Mem.Right] = pl.tile.extract(c_l0_b_mat, 0, 0, [64, 128], target_memory=pl.Mem.Right)
            if c_l0_ko == 0:
                c_l0_c_first: pl.Tile[[32, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(c_l0_a, c_l0_b)
                c_l0_c_phi: pl.Tile[[32, 128], pl.FP32, pl.Mem.Acc] = pl.yield_(c_l0_c_first)
            else:
                c_l0_c_acc: pl.Tile[[32, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(c_l0_c, c_l0_a, c_l0_b)
                c_l0_c_phi: pl.Tile[[32, 128], pl.FP32, pl.Mem.Acc] = pl.yield_(c_l0_c_acc)
            c: pl.Tile[[32, 128], pl.FP32, pl.Mem.Acc] = pl.yield_(c_l0_c_phi)
        out2: pl.Tensor[[32, 128], pl.FP32] = pl.tile.store(c, [0, 0], out)"""


def test_a_k_only_rewrite_streams_the_rhs_panel_mat_cannot_hold_and_keeps_the_lhs():
    """Ascend910B, [32, 2048] x [2048, 128] FP32: the 1 MiB rhs panel is larger than Mat, the 256 KiB lhs fits
    next to the rhs slabs. Each K block loads its rhs slab from `b` (`c_l0_b_mat`) and extracts it whole; the
    rhs panel load is gone."""
    before = matmul_kernel(32, 128, 2048, "FP32")
    after = run_pass(before, "Ascend910B")
    ir.assert_structural_equal(after, parse(kernel(K_ONLY_EXPECTED, K_ONLY_PARAMS, K_ONLY_RET)))
    same_results_reordered(before, after, "Ascend910B")


def test_the_slab_windows_start_at_the_panel_loads_own_offsets():
    body = """        am: pl.Tile[[32, 2048], pl.FP32, pl.Mem.Mat] = pl.tile.load(a, [0, 16], [32, 2048], target_memory=pl.Mem.Mat)
        bm: pl.Tile[[2048, 128], pl.FP32, pl.Mem.Mat] = pl.tile.load(b, [32, 64], [2048, 128], target_memory=pl.Mem.Mat)
        c: pl.Tile[[32, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(am, bm)
        out2: pl.Tensor[[32, 128], pl.FP32] = pl.tile.store(c, [0, 0], out)"""
    params = ("a: pl.Tensor[[32, 2064], pl.FP32], b: pl.Tensor[[2080, 192], pl.FP32], "
              "out: pl.Out[pl.Tensor[[32, 128], pl.FP32]]")
    before = parse(kernel(body, params, K_ONLY_RET))
    after = run_pass(before, "Ascend910B")
    text = ir.python_print(after.get_function("k"))
    assert "pl.tile.load(b, [32 + c_l0_ko, 64], [64, 128], [64, 128], target_memory=pl.Mem.Mat)" in text
    assert "bm:" not in text and "am:" in text
    same_results_reordered(before, after, "Ascend910B")


@pytest.mark.parametrize("backend", BACKENDS)
def test_panels_that_fit_alone_but_not_together_stream_the_larger(backend: str):
    """[192, 512] x [512, 256] FP32: 384 KiB and 512 KiB panels. The rhs (the larger) is streamed in every
    tile of the split-K grid, the lhs is kept and extracted from."""
    before = matmul_kernel(192, 256, 512, "FP32")
    after = run_pass(before, backend)
    text = ir.python_print(after.get_function("k"))
    assert "am: pl.Tile[[192, 512]" in text and "bm:" not in text
    assert "_l0_b_mat: pl.Tile[[" in text and "_l0_a_mat" not in text
    same_results_reordered(before, after, backend)


def test_a_full_k_grid_loads_the_streamed_operand_in_its_loop():
    """[1024, 64] x [64, 2048] FP32 (k == K): the 512 KiB rhs is streamed, its column block loaded in the
    loop over columns (`c_b_mat`), the 256 KiB lhs kept."""
    before = matmul_kernel(1024, 2048, 64, "FP32")
    after = run_pass(before, "Ascend910B")
    text = ir.python_print(after.get_function("k"))
    assert "c_b_mat: pl.Tile[[64, 256], pl.FP32, pl.Mem.Mat] = pl.tile.load(b, [0, c_o], [64, 256], [64, 256]" in text
    assert "c_b: pl.Tile[[64, 256], pl.FP32, pl.Mem.Right] = pl.tile.extract(c_b_mat, 0, 0, [64, 256]" in text
    assert "pl.tile.extract(am, c_i, 0, [128, 64]" in text
    same_results_reordered(before, after, "Ascend910B")


def _two_products(second: bool) -> ir.Program:
    """`c = am @ bm` ([64, 512] x [512, 128] FP32: 128 KiB + 256 KiB panels) with a 256 KiB Mat tile `em`
    loaded before it; `second`: `em` is read by a later matmul, so it is live across `c`."""
    params = ("a: pl.Tensor[[64, 512], pl.FP32], b: pl.Tensor[[512, 128], pl.FP32], e: pl.Tensor[[512, 128], pl.FP32], "
              "out: pl.Out[pl.Tensor[[64, 128], pl.FP32]], o2: pl.Out[pl.Tensor[[64, 128], pl.FP32]]")
    body = """        em: pl.Tile[[512, 128], pl.FP32, pl.Mem.Mat] = pl.tile.load(e, [0, 0], [512, 128], target_memory=pl.Mem.Mat)
        am: pl.Tile[[64, 512], pl.FP32, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [64, 512], target_memory=pl.Mem.Mat)
        bm: pl.Tile[[512, 128], pl.FP32, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [512, 128], target_memory=pl.Mem.Mat)
        c: pl.Tile[[64, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(am, bm)
        out2: pl.Tensor[[64, 128], pl.FP32] = pl.tile.store(c, [0, 0], out)
"""
    if second:
        body += """        d: pl.Tile[[64, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(am, em)
        o3: pl.Tensor[[64, 128], pl.FP32] = pl.tile.store(d, [0, 0], o2)
"""
    body += "        r: pl.Tensor[[64, 128], pl.FP32] = pl.tile.store(c, [0, 0], out2)"
    return parse(kernel(body, params, "pl.Tensor[[64, 128], pl.FP32]", result="r"))


@pytest.mark.parametrize("backend", BACKENDS)
def test_mat_tiles_live_across_the_matmul_count_against_its_panels(backend: str):
    alone = _two_products(second=False)
    assert "_mat" not in ir.python_print(run_pass(alone, backend))  # 384 KiB of panels fit Mat
    before = _two_products(second=True)
    after = run_pass(before, backend)
    text = ir.python_print(after.get_function("k"))
    assert "c_l0_b_mat" in text and "c_l0_a_mat" not in text  # + 256 KiB of `em`: the rhs is streamed
    assert "bm:" not in text
    assert "d_l0_b_mat" not in text and "em:" in text  # the second product's panels fit once `bm` is gone
    same_results_reordered(before, after, backend)


def test_panels_that_fit_mat_keep_pypto_s_form():
    """[256, 256] x [256, 256] FP32: both panels fill Mat exactly, nothing is streamed."""
    after = run_pass(matmul_kernel(256, 256, 256, "FP32"), "Ascend910B")
    text = ir.python_print(after)
    assert "_mat" not in text and "am: pl.Tile[[256, 256]" in text and "bm: pl.Tile[[256, 256]" in text

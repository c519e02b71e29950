"""AutoTileMatmulL0's bias of a matmul_bias M/N grid (docs/passes/auto_tile_matmul_l0.md, bias windows): a
Bias-resident bias is used as it is, a Mat bias moved to Bias whole when a tile spans N, and otherwise loaded
again per N window from its GM tensor. Structural (printed forms) and executed on both backends."""

from __future__ import annotations

import pytest

from pypto import ir
from pypto_plugins.pass_matmul.tests.helpers import BACKENDS, kernel, parse, run_pass, same_results_reordered


def bias_kernel(m: int, n: int, k: int, *, space: str = "Mat", between: str = "", chained: bool = False,
                bias_from: str = "load") -> ir.Program:
    """`c = tile.matmul_bias(am, bm, <bias>)` stored to `out` (or, `chained`, read by another matmul)."""
    params = (f"a: pl.Tensor[[{m}, {k}], pl.BF16], b: pl.Tensor[[{k}, {n}], pl.BF16], "
              f"bias: pl.Tensor[[1, {n}], pl.FP32]")
    out_shape = f"[{m}, 32]" if chained else f"[{m}, {n}]"
    if chained:
        params += f", e: pl.Tensor[[{n}, 32], pl.BF16]"
    params += f", out: pl.Out[pl.Tensor[{out_shape}, pl.FP32]]"
    body = f"""        am: pl.Tile[[{m}, {k}], pl.BF16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [{m}, {k}], target_memory=pl.Mem.Mat)
        bm: pl.Tile[[{k}, {n}], pl.BF16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [{k}, {n}], target_memory=pl.Mem.Mat)
"""
    if bias_from == "load":
        body += (f"        biasm: pl.Tile[[1, {n}], pl.FP32, pl.Mem.Mat] = pl.tile.load(bias, [0, 0], [1, {n}], "
                 "target_memory=pl.Mem.Mat)\n")
    else:
        body += (f"        biasv: pl.Tile[[1, {n}], pl.FP32, pl.Mem.Vec] = pl.tile.load(bias, [0, 0], [1, {n}], "
                 "target_memory=pl.Mem.Vec)\n"
                 f"        biasm: pl.Tile[[1, {n}], pl.FP32, pl.Mem.Mat] = pl.tile.move(biasv, "
                 "target_memory=pl.Mem.Mat)\n")
    operand = "biasm"
    if space == "Bias":
        body += (f"        biasb: pl.Tile[[1, {n}], pl.FP32, pl.Mem.Bias] = pl.tile.move(biasm, "
                 "target_memory=pl.Mem.Bias)\n")
        operand = "biasb"
    body += f"        c: pl.Tile[[{m}, {n}], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_bias(am, bm, {operand})\n"
    body += between
    if chained:
        body += f"""        em: pl.Tile[[{n}, 32], pl.BF16, pl.Mem.Mat] = pl.tile.load(e, [0, 0], [{n}, 32], target_memory=pl.Mem.Mat)
        cb: pl.Tile[[{m}, {n}], pl.BF16, pl.Mem.Acc] = pl.tile.cast(c, pl.BF16, mode="rint")
        d: pl.Tile[[{m}, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(cb, em)
        out2: pl.Tensor[[{m}, 32], pl.FP32] = pl.tile.store(d, [0, 0], out)"""
    else:
        body += f"        out2: pl.Tensor[[{m}, {n}], pl.FP32] = pl.tile.store(c, [0, 0], out)"
    return parse(kernel(body, params, f"pl.Tensor[{out_shape}, pl.FP32]"))


def _text(program: ir.Program) -> str:
    return ir.python_print(program.get_function("k"))


def test_a_full_k_grid_loads_each_bias_window_next_to_its_columns():
    before = bias_kernel(128, 512, 64)  # Ascend910B: B-stationary (128, 256, 64), columns outer
    after = run_pass(before, "Ascend910B")
    text = _text(after)
    assert "for c_o, (c_oc,) in pl.range(0, 512, 256, init_values=(out,)):" in text
    assert ("c_bias_mat: pl.Tile[[1, 256], pl.FP32, pl.Mem.Mat, pl.TileView(blayout=pl.TileLayout.row_major, "
            "slayout=pl.TileLayout.none_box)] = pl.tile.load(bias, [0, c_o], [1, 256], [1, 256], "
            "target_memory=pl.Mem.Mat)") in text
    assert "c_bias: pl.Tile[[1, 256], pl.FP32, pl.Mem.Bias] = pl.tile.move(c_bias_mat, target_memory=pl.Mem.Bias)" \
        in text
    assert "c_c: pl.Tile[[128, 256], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_bias(c_a, c_b, c_bias)" in text
    same_results_reordered(before, after, "Ascend910B")


def test_a_split_k_grid_spanning_n_moves_the_whole_bias_per_tile():
    before = bias_kernel(256, 256, 256)  # Ascend910B: (128, 256, 64), two row tiles
    after = run_pass(before, "Ascend910B")
    text = _text(after)
    for s in (0, 1):
        assert f"c_t{s}_l0_bias: pl.Tile[[1, 256], pl.FP32, pl.Mem.Bias] = pl.tile.move(biasm, " \
               "target_memory=pl.Mem.Bias)" in text
        assert f"pl.tile.matmul_bias(c_t{s}_l0_a, c_t{s}_l0_b, c_t{s}_l0_bias)" in text
    assert "_bias_mat" not in text
    same_results_reordered(before, after, "Ascend910B")


def test_a_split_k_grid_narrower_than_n_reloads_each_tiles_window():
    before = bias_kernel(256, 1024, 128)  # Ascend950: (256, 256, 64), four column tiles
    after = run_pass(before, "Ascend950")
    text = _text(after)
    for s, col in enumerate((0, 256, 512, 768)):
        assert f"pl.tile.load(bias, [0, {col}], [1, 256], [1, 256], target_memory=pl.Mem.Mat)" in text
        assert f"c_t{s}_l0_bias: pl.Tile[[1, 256], pl.FP32, pl.Mem.Bias] = pl.tile.move(c_t{s}_l0_bias_mat" in text
    same_results_reordered(before, after, "Ascend950")


def test_a_ragged_tile_reloads_its_narrower_window():
    before = bias_kernel(160, 544, 64)
    after = run_pass(before, "Ascend910B")
    text = _text(after)
    assert "c_tbias1_mat: pl.Tile[[1, 32], pl.FP32, pl.Mem.Mat" in text
    assert "pl.tile.load(bias, [0, 512], [1, 32], [1, 32], target_memory=pl.Mem.Mat)" in text
    assert "c_tc1: pl.Tile[[160, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_bias(c_ta1, c_tb1, c_tbias1)" in text
    same_results_reordered(before, after, "Ascend910B")


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_bias_resident_bias_is_used_by_every_tile_as_it_is(backend):
    before = bias_kernel(512, 128, 64, space="Bias") if backend == "Ascend910B" else \
        bias_kernel(1024, 256, 128, space="Bias")
    after = run_pass(before, backend)
    text = _text(after)
    assert "biasb)" in text and text.count("pl.tile.move(") == 1  # the program's own move only
    assert "_l0_bias" not in text and "c_bias" not in text and "c_tbias" not in text
    assert "for c_" in text or "c_t0" in text
    same_results_reordered(before, after, backend)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("shape", [(128, 512, 64), (256, 256, 256), (160, 544, 64), (256, 1024, 128),
                                   (96, 800, 96)])
def test_every_bias_grid_computes_the_same_outputs(backend, shape):
    before = bias_kernel(*shape)
    after = run_pass(before, backend)
    same_results_reordered(before, after, backend)


def test_a_store_after_another_statement_cannot_reload_the_windows(capfd):
    between = "        x: pl.Scalar[pl.INDEX] = 1 + 0\n"
    before = bias_kernel(128, 512, 64, between=between)
    after = run_pass(before, "Ascend910B")
    assert "pl.tile.matmul_bias(am, bm, biasm)" in _text(after)
    err = capfd.readouterr().err
    assert "PH-AT-006" in err and "right after it (its bias windows are loaded again there)" in err


def test_window_loads_between_the_matmul_and_its_store_are_allowed():
    between = "        a2: pl.Tile[[128, 64], pl.BF16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [128, 64], " \
              "target_memory=pl.Mem.Mat)\n"
    before = bias_kernel(128, 512, 64, between=between)
    after = run_pass(before, "Ascend910B")
    assert "c_bias_mat" in _text(after)
    same_results_reordered(before, after, "Ascend910B")


def test_a_mat_bias_that_is_not_a_window_load_is_a_hint(capfd):
    before = bias_kernel(128, 512, 64, bias_from="move")
    after = run_pass(before, "Ascend910B")
    assert "pl.tile.matmul_bias(am, bm, biasm)" in _text(after)
    assert "its Mat bias is not a [1, N] window load" in capfd.readouterr().err


def test_a_chained_bias_grid_reloads_windows_into_its_mat_scratch():
    before = bias_kernel(128, 512, 64, chained=True)
    after = run_pass(before, "Ascend910B")
    text = _text(after)
    assert "c_mat: pl.Tile[[128, 512], pl.BF16, pl.Mem.Mat]" in text
    assert "pl.tile.load(bias, [0, " in text and "tile.cast" not in text
    same_results_reordered(before, after, "Ascend910B", exact=True)

"""AutoTileMatmulL0's canonical split-K pre-pass (docs/passes/auto_tile_matmul_l0.md, user K loops): a user's
pipelined K loop of window loads whose accumulator does not fit L0C is copied once per output tile, loads
narrowed, stores chained; the copies' matmuls are then K-tiled by the ordinary rewrite. Structural and executed
on both backends."""

from __future__ import annotations

import pytest

from pypto import ir
from pypto_plugins.pass_matmul.tests.helpers import BACKENDS, kernel, parse, run_pass, same_results_reordered


def user_k_loop(m: int, n: int, k: int, ks: int, *, swapped: bool = False, scalar: bool = False,
                between: bool = False) -> ir.Program:
    """`acc0` create, `for ko in pl.pipeline(0, k, ks)` loading `[m, ks]` / `[ks, n]` Mat windows, `if ko == 0`
    matmul else matmul_acc (`swapped`: the other order), then the store of the loop's result."""
    params = (f"a: pl.Tensor[[{m}, {k}], pl.BF16], b: pl.Tensor[[{k}, {n}], pl.BF16], "
              f"out: pl.Out[pl.Tensor[[{m}, {n}], pl.FP32]]")
    if between:
        params += f", o: pl.Out[pl.Tensor[[{m}, {n}], pl.FP32]]"
    col = "kk" if scalar else "ko"
    body = f"""        acc0: pl.Tile[[{m}, {n}], pl.FP32, pl.Mem.Acc] = pl.tile.create([{m}, {n}], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        for ko, (acc,) in pl.pipeline(0, {k}, {ks}, init_values=(acc0,), stage=2):
"""
    if scalar:
        body += "            kk: pl.Scalar[pl.INDEX] = ko + 0\n"
    body += f"""            am: pl.Tile[[{m}, {ks}], pl.BF16, pl.Mem.Mat] = pl.tile.load(a, [0, {col}], [{m}, {ks}], target_memory=pl.Mem.Mat)
            bm: pl.Tile[[{ks}, {n}], pl.BF16, pl.Mem.Mat] = pl.tile.load(b, [{col}, 0], [{ks}, {n}], target_memory=pl.Mem.Mat)
"""
    first = f"""                c1: pl.Tile[[{m}, {n}], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(am, bm)
                cp: pl.Tile[[{m}, {n}], pl.FP32, pl.Mem.Acc] = pl.yield_(c1)
"""
    later = f"""                c2: pl.Tile[[{m}, {n}], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(acc, am, bm)
                cp: pl.Tile[[{m}, {n}], pl.FP32, pl.Mem.Acc] = pl.yield_(c2)
"""
    if swapped:
        body += "            if ko != 0:\n" + later + "            else:\n" + first
    else:
        body += "            if ko == 0:\n" + first + "            else:\n" + later
    body += f"            r: pl.Tile[[{m}, {n}], pl.FP32, pl.Mem.Acc] = pl.yield_(cp)\n"
    if between:
        body += f"        o2: pl.Tensor[[{m}, {n}], pl.FP32] = pl.tile.store(r, [0, 0], o)\n"
    body += f"        out2: pl.Tensor[[{m}, {n}], pl.FP32] = pl.tile.store(r, [0, 0], out)"
    return parse(kernel(body, params, f"pl.Tensor[[{m}, {n}], pl.FP32]"))


def _clone(s: int, col: int, ks: str = "ko") -> str:
    return f"""        acc0_mn{s}: pl.Tile[[128, 256], pl.FP32, pl.Mem.Acc] = pl.tile.create([128, 256], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        for ko, (acc_mn{s},) in pl.pipeline(0, 256, 128, init_values=(acc0_mn{s},), stage=2):
            am_mn{s}: pl.Tile[[128, 128], pl.BF16, pl.Mem.Mat] = pl.tile.load(a, [0, ko], [128, 128], [128, 128], target_memory=pl.Mem.Mat)
            bm_mn{s}: pl.Tile[[128, 256], pl.BF16, pl.Mem.Mat] = pl.tile.load(b, [ko, {col}], [128, 256], [128, 256], target_memory=pl.Mem.Mat)
            if ko == 0:
                c1_mn{s}: pl.Tile[[128, 256], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(am_mn{s}, bm_mn{s})
                cp_mn{s}: pl.Tile[[128, 256], pl.FP32, pl.Mem.Acc] = pl.yield_(c1_mn{s})
            else:
                c2_mn{s}: pl.Tile[[128, 256], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(acc_mn{s}, am_mn{s}, bm_mn{s})
                cp_mn{s}: pl.Tile[[128, 256], pl.FP32, pl.Mem.Acc] = pl.yield_(c2_mn{s})
            r_mn{s}: pl.Tile[[128, 256], pl.FP32, pl.Mem.Acc] = pl.yield_(cp_mn{s})
"""


E8_PARAMS = ("a: pl.Tensor[[128, 256], pl.BF16], b: pl.Tensor[[256, 512], pl.BF16], "
             "out: pl.Out[pl.Tensor[[128, 512], pl.FP32]]")
E8_EXPECTED = (_clone(0, 0) + "        out_t0: pl.Tensor[[128, 512], pl.FP32] = pl.tile.store(r_mn0, [0, 0], out)\n"
               + _clone(1, 256) + "        out_t1: pl.Tensor[[128, 512], pl.FP32] = pl.tile.store(r_mn1, [0, 256], out_t0)")


def test_e8_a_user_k_loop_is_copied_per_output_tile():
    before = user_k_loop(128, 512, 256, 128)
    after = run_pass(before, "Ascend910B")
    ir.assert_structural_equal(after, parse(kernel(E8_EXPECTED, E8_PARAMS, "pl.Tensor[[128, 512], pl.FP32]",
                                                   result="out_t1")))
    same_results_reordered(before, after, "Ascend910B")


def _text(program: ir.Program) -> str:
    return ir.python_print(program.get_function("k"))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("shape", [(128, 512, 256, 128), (160, 544, 256, 128), (256, 1024, 256, 128),
                                   (128, 512, 1024, 512)])
def test_every_copy_computes_the_same_outputs(backend, shape):
    before = user_k_loop(*shape)
    after = run_pass(before, backend)
    same_results_reordered(before, after, backend)


def test_ragged_tiles_narrow_the_loads_to_the_last_columns():
    after = run_pass(user_k_loop(160, 544, 256, 128), "Ascend910B")
    text = _text(after)
    # [160, 544] is split into 128-column tiles: the fifth covers the last 32 columns
    assert "bm_mn4: pl.Tile[[128, 32], pl.BF16, pl.Mem.Mat] = pl.tile.load(b, [ko_4, 512], [128, 32], [128, 32]" in text
    assert "acc0_mn4: pl.Tile[[160, 32], pl.FP32, pl.Mem.Acc]" in text
    assert "out_t4: pl.Tensor[[160, 544], pl.FP32] = pl.tile.store(r_mn4, [0, 512], out_t3)" in text


def test_the_copies_matmuls_are_k_tiled_by_the_ordinary_rewrite():
    after = run_pass(user_k_loop(128, 512, 1024, 512), "Ascend910B")
    text = _text(after)
    assert "for c1_mn0_l0_ko, (c1_mn0_l0_c,) in pl.pipeline(0, 512, 64, stage=2" in text
    assert "pl.tile.matmul_acc(acc_mn1," not in text  # the caller's accumulator now starts a K loop
    # each copy's K step is one K loop on the copy's carried accumulator (user K steps on their carry)
    assert "for c1_mn1_l0_ko, (c1_mn1_l0_c,) in pl.pipeline(0, 512, 64, stage=2, init_values=(acc_mn1,))" in text
    assert "if c1_mn1_l0_ko == 0 and ko_1 == 0:" in text
    assert "c2_mn1" not in text and "l0_init" not in text


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_matmul_in_the_else_branch_and_a_scalar_offset_are_copied_too(backend):
    before = user_k_loop(128, 1024, 256, 128, swapped=True, scalar=True)
    after = run_pass(before, backend)
    text = _text(after)
    assert "kk_mn0: pl.Scalar[pl.INDEX] = ko + 0" in text
    assert "acc0_mn1" in text and "out_t1" in text
    assert "pl.tile.load(b, [kk_mn1, 256]" in text or "pl.tile.load(b, [kk_mn1, 512]" in text
    same_results_reordered(before, after, backend)


def test_a_loop_whose_accumulator_fits_is_not_copied():
    before = user_k_loop(64, 128, 256, 128)
    assert run_pass(before, "Ascend910B") is before


def test_a_loop_result_read_twice_is_not_copied(capfd):
    before = user_k_loop(128, 512, 256, 128, between=True)
    after = run_pass(before, "Ascend910B")
    assert "_mn0" not in _text(after)
    assert "PH-AT-006" in capfd.readouterr().err  # the matmul inside then needs a grid it cannot place


def test_two_user_k_loops_storing_into_one_tensor_chain_their_stores():
    params = ("a: pl.Tensor[[256, 256], pl.BF16], b: pl.Tensor[[256, 512], pl.BF16], "
              "out: pl.Out[pl.Tensor[[256, 512], pl.FP32]]")
    body = ""
    for half, (row, target, result) in enumerate(((0, "out", "out2"), (128, "out2", "out3"))):
        body += f"""        acc0{half}: pl.Tile[[128, 512], pl.FP32, pl.Mem.Acc] = pl.tile.create([128, 512], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        for ko{half}, (acc{half},) in pl.pipeline(0, 256, 128, init_values=(acc0{half},), stage=2):
            am{half}: pl.Tile[[128, 128], pl.BF16, pl.Mem.Mat] = pl.tile.load(a, [{row}, ko{half}], [128, 128], target_memory=pl.Mem.Mat)
            bm{half}: pl.Tile[[128, 512], pl.BF16, pl.Mem.Mat] = pl.tile.load(b, [ko{half}, 0], [128, 512], target_memory=pl.Mem.Mat)
            if ko{half} == 0:
                c{half}: pl.Tile[[128, 512], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(am{half}, bm{half})
                cp{half}: pl.Tile[[128, 512], pl.FP32, pl.Mem.Acc] = pl.yield_(c{half})
            else:
                d{half}: pl.Tile[[128, 512], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(acc{half}, am{half}, bm{half})
                cp{half}: pl.Tile[[128, 512], pl.FP32, pl.Mem.Acc] = pl.yield_(d{half})
            r{half}: pl.Tile[[128, 512], pl.FP32, pl.Mem.Acc] = pl.yield_(cp{half})
        {result}: pl.Tensor[[256, 512], pl.FP32] = pl.tile.store(r{half}, [{row}, 0], {target})
"""
    before = parse(kernel(body.rstrip("\n"), params, "pl.Tensor[[256, 512], pl.FP32]", result="out3"))
    after = run_pass(before, "Ascend910B")
    text = _text(after)
    assert "out_t1: pl.Tensor[[256, 512], pl.FP32] = pl.tile.store(r0_mn1, [0, 256], out_t0)" in text
    assert "pl.tile.store(r1_mn0, [128, 0], out_t1)" in text  # the second loop stores after the first's
    same_results_reordered(before, after, "Ascend910B")

"""AutoTileMatmulL0's Mat scratch for chained matmuls and its FP32 -> BF16 / FP16 cast fold
(docs/passes/auto_tile_matmul_l0.md, Mat scratch and cast fold): a result read only as a matmul operand is
assembled tile by tile into Mat (PH-AT-009 where the backend needs a narrowed scratch), and a `rint` narrowing
cast of an Acc tile read only as a matmul operand becomes the assemble's conversion (PH-AT-010 for another
mode or a non-FP32 source). Structural and executed on both backends."""

from __future__ import annotations

import pytest

from pypto import ir, passes
from pypto_plugins.pass_matmul.tests.helpers import (
    BACKENDS,
    kernel,
    parse,
    run_pass,
    same_results_reordered,
)


def chained(m: int, n: int, k: int, *, cast: str | None = "rint", consumer: str = "lhs", scratch_dtype: str = "BF16",
            extra: str = "") -> ir.Program:
    """`c = matmul(am, bm)` ([m, k] x [k, n]), narrowed by `cb = tile.cast(c, ...)` when `cast` is a mode, then
    read by `d = matmul(cb, em)` (consumer lhs) or `d = matmul(fm, cb)` (consumer rhs) stored to `out`."""
    e_dtype = scratch_dtype if cast is not None else "FP32"
    if consumer == "lhs":
        e_shape, out_shape = f"[{n}, 32]", f"[{m}, 32]"
    else:
        e_shape, out_shape = f"[32, {m}]", f"[32, {n}]"
    params = (f"a: pl.Tensor[[{m}, {k}], pl.BF16], b: pl.Tensor[[{k}, {n}], pl.BF16], "
              f"e: pl.Tensor[{e_shape}, pl.{e_dtype}], out: pl.Out[pl.Tensor[{out_shape}, pl.FP32]]")
    body = f"""        am: pl.Tile[[{m}, {k}], pl.BF16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [{m}, {k}], target_memory=pl.Mem.Mat)
        bm: pl.Tile[[{k}, {n}], pl.BF16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [{k}, {n}], target_memory=pl.Mem.Mat)
        em: pl.Tile[{e_shape}, pl.{e_dtype}, pl.Mem.Mat] = pl.tile.load(e, [0, 0], {e_shape}, target_memory=pl.Mem.Mat)
        c: pl.Tile[[{m}, {n}], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(am, bm)
"""
    operand = "c"
    if cast is not None:
        body += (f"        cb: pl.Tile[[{m}, {n}], pl.{scratch_dtype}, pl.Mem.Acc] = "
                 f"pl.tile.cast(c, pl.{scratch_dtype}, mode=\"{cast}\")\n")
        operand = "cb"
    call = f"pl.tile.matmul({operand}, em)" if consumer == "lhs" else f"pl.tile.matmul(em, {operand})"
    body += f"        d: pl.Tile[{out_shape}, pl.FP32, pl.Mem.Acc] = {call}\n" + extra
    body += f"        out2: pl.Tensor[{out_shape}, pl.FP32] = pl.tile.store(d, [0, 0], out)"
    return parse(kernel(body, params, f"pl.Tensor[{out_shape}, pl.FP32]"))


def _text(program: ir.Program) -> str:
    return ir.python_print(program.get_function("k"))


# -- Mat scratch ---------------------------------------------------------------------------------------------

SCRATCH_PARAMS = ("a: pl.Tensor[[128, 64], pl.BF16], b: pl.Tensor[[64, 512], pl.BF16], "
                  "e: pl.Tensor[[512, 32], pl.BF16], out: pl.Out[pl.Tensor[[128, 32], pl.FP32]]")
SCRATCH_EXPECTED = """        am: pl.Tile[[128, 64], pl.BF16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [128, 64], target_memory=pl.Mem.Mat)
        bm: pl.Tile[[64, 512], pl.BF16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [64, 512], target_memory=pl.Mem.Mat)
        em: pl.Tile[[512, 32], pl.BF16, pl.Mem.Mat] = pl.tile.load(e, [0, 0], [512, 32], target_memory=pl.Mem.Mat)
        c_mat: pl.Tile[[128, 512], pl.BF16, pl.Mem.Mat] = pl.tile.create([128, 512], dtype=pl.BF16, target_memory=pl.Mem.Mat)
        for c_o, (c_oc,) in pl.pipeline(0, 128, 128, stage=2, init_values=(c_mat,), attrs={"pipeline_overlap_stores": False}):
            c_a: pl.Tile[[128, 64], pl.BF16, pl.Mem.Left, pl.TileView(blayout=pl.TileLayout.row_major)] = pl.tile.extract(am, c_o, 0, [128, 64], target_memory=pl.Mem.Left)
            for c_i, (c_ic,) in pl.pipeline(0, 512, 256, stage=2, init_values=(c_oc,), attrs={"pipeline_overlap_stores": False}):
                c_b: pl.Tile[[64, 256], pl.BF16, pl.Mem.Right] = pl.tile.extract(bm, 0, c_i, [64, 256], target_memory=pl.Mem.Right)
                c_c: pl.Tile[[128, 256], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(c_a, c_b)
                c_mat_t0: pl.Tile[[128, 512], pl.BF16, pl.Mem.Mat] = pl.tile.assemble(c_ic, c_c, [c_o, c_i])
                c_irv: pl.Tile[[128, 512], pl.BF16, pl.Mem.Mat] = pl.yield_(c_mat_t0)
            c_orv: pl.Tile[[128, 512], pl.BF16, pl.Mem.Mat] = pl.yield_(c_irv)
        d_l0_init: pl.Tile[[128, 32], pl.FP32, pl.Mem.Acc] = pl.tile.create([128, 32], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        for d_l0_ko, (d_l0_c,) in pl.pipeline(0, 512, 128, stage=2, init_values=(d_l0_init,)):
            d_l0_a: pl.Tile[[128, 128], pl.BF16, pl.Mem.Left, pl.TileView(blayout=pl.TileLayout.row_major)] = pl.tile.extract(c_orv, 0, d_l0_ko, [128, 128], target_memory=pl.Mem.Left)
            d_l0_b: pl.Tile[[128, 32], pl.BF16, pl.Mem.Right] = pl.tile.extract(em, d_l0_ko, 0, [128, 32], target_memory=pl.Mem.Right)
            if d_l0_ko == 0:
                d_l0_c_first: pl.Tile[[128, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(d_l0_a, d_l0_b)
                d_l0_c_phi: pl.Tile[[128, 32], pl.FP32, pl.Mem.Acc] = pl.yield_(d_l0_c_first)
            else:
                d_l0_c_acc: pl.Tile[[128, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(d_l0_c, d_l0_a, d_l0_b)
                d_l0_c_phi: pl.Tile[[128, 32], pl.FP32, pl.Mem.Acc] = pl.yield_(d_l0_c_acc)
            d: pl.Tile[[128, 32], pl.FP32, pl.Mem.Acc] = pl.yield_(d_l0_c_phi)
        out2: pl.Tensor[[128, 32], pl.FP32] = pl.tile.store(d, [0, 0], out)"""


def test_a_full_k_grid_read_through_a_rint_cast_is_assembled_into_a_narrow_mat_scratch():
    before = chained(128, 512, 64)
    after = run_pass(before, "Ascend910B")
    ir.assert_structural_equal(after, parse(kernel(SCRATCH_EXPECTED, SCRATCH_PARAMS, "pl.Tensor[[128, 32], pl.FP32]")))
    same_results_reordered(before, after, "Ascend910B", exact=True)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_split_k_grid_assembles_each_tile_and_chains_the_scratch(backend):
    before = chained(256, 256, 256) if backend == "Ascend910B" else chained(256, 512, 256)
    after = run_pass(before, backend)
    text = _text(after)
    n = 256 if backend == "Ascend910B" else 512
    assert f"c_mat: pl.Tile[[256, {n}], pl.BF16, pl.Mem.Mat] = pl.tile.create([256, {n}], dtype=pl.BF16, " \
           "target_memory=pl.Mem.Mat)" in text
    second = "[128, 0]" if backend == "Ascend910B" else "[0, 256]"
    assert f"c_mat_t0: pl.Tile[[256, {n}], pl.BF16, pl.Mem.Mat] = pl.tile.assemble(c_mat, c_t0, [0, 0])" in text
    assert f"c_mat_t1: pl.Tile[[256, {n}], pl.BF16, pl.Mem.Mat] = pl.tile.assemble(c_mat_t0, c_t1, {second})" in text
    assert "pl.tile.extract(c_mat_t1, 0, d_l0_ko" in text  # the consumer reads the last scratch value
    assert "tile.cast" not in text and "tile.store(c_" not in text
    same_results_reordered(before, after, backend, exact=True)


def test_an_fp32_scratch_is_assembled_where_the_backend_allows_it():
    before = chained(128, 768, 64, cast=None)
    after = run_pass(before, "Ascend950")
    text = _text(after)
    assert "c_mat: pl.Tile[[128, 768], pl.FP32, pl.Mem.Mat] = pl.tile.create([128, 768], dtype=pl.FP32" in text
    assert "pl.tile.assemble(" in text
    same_results_reordered(before, after, "Ascend950")


def test_an_fp32_scratch_on_a_backend_needing_a_narrow_one_is_a_hint(capfd):
    before = chained(128, 512, 64, cast=None)
    assert run_pass(before, "Ascend910B") is before
    err = capfd.readouterr().err
    assert "[perf_hint PH-AT-009] AutoTileMatmulL0: tile.matmul: the [128, 512] result is read as a matmul operand" \
        in err
    assert "not fp32" in err


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_result_read_as_the_right_operand_goes_through_the_scratch(backend):
    before = chained(128, 1024, 64, consumer="rhs") if backend == "Ascend910B" else chained(256, 1024, 64,
                                                                                          consumer="rhs")
    after = run_pass(before, backend)
    text = _text(after)
    assert "c_mat = " not in text and "c_mat: pl.Tile" in text
    assert "tile.cast" not in text
    same_results_reordered(before, after, backend, exact=True)


def test_a_result_read_by_two_matmuls_and_inside_a_loop_goes_through_the_scratch():
    extra = """        for i, (acc,) in pl.range(0, 2, 1, init_values=(d,)):
            d2: pl.Tile[[128, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(acc, cb, em)
            dn: pl.Tile[[128, 32], pl.FP32, pl.Mem.Acc] = pl.yield_(d2)
"""
    before = chained(128, 512, 64, extra=extra)
    # the store reads d (the first consumer); the loop's accumulation into it is another chained read of cb
    after = run_pass(before, "Ascend910B")
    text = _text(after)
    assert text.count("pl.tile.extract(c_orv, 0, ") == 2  # both consumers' K loops read the scratch
    same_results_reordered(before, after, "Ascend910B", exact=True)


def test_a_result_also_read_by_another_op_is_not_chained(capfd):
    extra = "        o3: pl.Tensor[[128, 512], pl.BF16] = pl.tile.store(cb, [0, 0], o)\n"
    params = ("a: pl.Tensor[[128, 64], pl.BF16], b: pl.Tensor[[64, 512], pl.BF16], e: pl.Tensor[[512, 32], pl.BF16], "
              "o: pl.Out[pl.Tensor[[128, 512], pl.BF16]], out: pl.Out[pl.Tensor[[128, 32], pl.FP32]]")
    program = parse(kernel("""        am: pl.Tile[[128, 64], pl.BF16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [128, 64], target_memory=pl.Mem.Mat)
        bm: pl.Tile[[64, 512], pl.BF16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [64, 512], target_memory=pl.Mem.Mat)
        em: pl.Tile[[512, 32], pl.BF16, pl.Mem.Mat] = pl.tile.load(e, [0, 0], [512, 32], target_memory=pl.Mem.Mat)
        c: pl.Tile[[128, 512], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(am, bm)
        cb: pl.Tile[[128, 512], pl.BF16, pl.Mem.Acc] = pl.tile.cast(c, pl.BF16, mode="rint")
        d: pl.Tile[[128, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(cb, em)
""" + extra + """        out2: pl.Tensor[[128, 32], pl.FP32] = pl.tile.store(d, [0, 0], out)""", params, "pl.Tensor[[128, 32], pl.FP32]"))
    after = run_pass(program, "Ascend910B")
    text = _text(after)
    assert "c: pl.Tile[[128, 512], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(am, bm)" in text
    assert "c_mat" not in text
    assert "PH-AT-006" in capfd.readouterr().err


def test_a_cast_with_another_rounding_does_not_fold_into_the_scratch(capfd):
    before = chained(128, 512, 64, cast="round")
    after = run_pass(before, "Ascend910B")
    text = _text(after)
    assert "c: pl.Tile[[128, 512], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(am, bm)" in text
    assert "pl.tile.cast(c, target_type=pl.BF16, mode='round')" in text
    assert "PH-AT-006" in capfd.readouterr().err


def test_a_scratch_larger_than_mat_is_a_hint(capfd):
    before = chained(512, 1024, 64)  # a [512, 1024] BF16 scratch is 1 MiB
    after = run_pass(before, "Ascend950")
    assert "c: pl.Tile[[512, 1024], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(am, bm)" in _text(after)
    err = capfd.readouterr().err
    assert "PH-AT-006" in err and "Mat scratch of the result needs 1048576 bytes" in err


@pytest.mark.parametrize("context, outer", [
    ({}, "for c_t0_l0_ko"),  # PYPTO: the B-stationary choice is re-chosen output-stationary (split K here)
    ({"memory_planner": passes.MemoryPlanner.PTOAS}, "for c_o, (c_oc,) in pl.range(0, 512, 256, init_values=(c_mat,))"),
], ids=["pypto", "ptoas"])
def test_a_stationary_choice_is_rechosen_output_stationary_under_the_pypto_planner(context, outer):
    before = chained(128, 512, 128)  # the chooser holds B (128, 256, 128) on Ascend910B
    after = run_pass(before, "Ascend910B", **context)
    assert outer in _text(after)
    same_results_reordered(before, after, "Ascend910B", exact=True)


# -- cast fold (the result fits L0C) ---------------------------------------------------------------------------

E6_PARAMS = ("a: pl.Tensor[[64, 64], pl.BF16], b: pl.Tensor[[64, 64], pl.BF16], e: pl.Tensor[[64, 32], pl.BF16], "
             "out: pl.Out[pl.Tensor[[64, 32], pl.FP32]]")
E6_LOADS = """        am: pl.Tile[[64, 64], pl.BF16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
        bm: pl.Tile[[64, 64], pl.BF16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
        em: pl.Tile[[64, 32], pl.BF16, pl.Mem.Mat] = pl.tile.load(e, [0, 0], [64, 32], target_memory=pl.Mem.Mat)
        c: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(am, bm)
"""
E6_EXPECTED = E6_LOADS + """        c_mat: pl.Tile[[64, 64], pl.BF16, pl.Mem.Mat] = pl.tile.create([64, 64], dtype=pl.BF16, target_memory=pl.Mem.Mat)
        c_mat_t0: pl.Tile[[64, 64], pl.BF16, pl.Mem.Mat] = pl.tile.assemble(c_mat, c, [0, 0])
        d: pl.Tile[[64, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(c_mat_t0, em)
        out2: pl.Tensor[[64, 32], pl.FP32] = pl.tile.store(d, [0, 0], out)"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_e6_a_rint_cast_of_a_matmul_that_fits_becomes_a_mat_assemble(backend):
    before = chained(64, 64, 64)
    after = run_pass(before, backend)
    ir.assert_structural_equal(after, parse(kernel(E6_EXPECTED, E6_PARAMS, "pl.Tensor[[64, 32], pl.FP32]")))
    same_results_reordered(before, after, backend, exact=True)
    same_results_reordered(before, after, backend)  # no reordering here: random inputs agree too


def test_an_fp16_cast_read_as_the_right_operand_folds():
    before = chained(64, 64, 64, consumer="rhs", scratch_dtype="FP16")
    after = run_pass(before, "Ascend910B")
    text = _text(after)
    assert "c_mat: pl.Tile[[64, 64], pl.FP16, pl.Mem.Mat] = pl.tile.create([64, 64], dtype=pl.FP16" in text
    assert "d: pl.Tile[[32, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(em, c_mat_t0)" in text
    same_results_reordered(before, after, "Ascend910B")


def test_a_cast_after_a_k_only_rewrite_folds_into_the_loop_result():
    before = chained(32, 128, 1024)  # K-only: c becomes the K loop's result
    after = run_pass(before, "Ascend910B")
    text = _text(after)
    assert "c: pl.Tile[[32, 128], pl.FP32, pl.Mem.Acc] = pl.yield_(c_l0_c_phi)" in text
    assert "c_mat_t0: pl.Tile[[32, 128], pl.BF16, pl.Mem.Mat] = pl.tile.assemble(c_mat, c, [0, 0])" in text
    same_results_reordered(before, after, "Ascend910B", exact=True)


def test_a_cast_with_the_default_rounding_is_a_hint_and_kept(capfd):
    before = chained(64, 64, 64, cast="round")
    assert run_pass(before, "Ascend910B") is before
    err = capfd.readouterr().err
    assert "[perf_hint PH-AT-010] AutoTileMatmulL0: tile.cast: the fp32 -> bf16 cast of an Acc tile read only as a " \
           "matmul operand folds into its Acc -> Mat assemble only from FP32 with mode=\"rint\" — the cast is kept." \
        in err


def test_a_cast_of_an_integer_accumulator_is_a_hint_and_kept(capfd):
    params = ("a: pl.Tensor[[64, 64], pl.INT8], b: pl.Tensor[[64, 64], pl.INT8], e: pl.Tensor[[64, 32], pl.FP16], "
              "out: pl.Out[pl.Tensor[[64, 32], pl.FP32]]")
    body = """        am: pl.Tile[[64, 64], pl.INT8, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
        bm: pl.Tile[[64, 64], pl.INT8, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
        em: pl.Tile[[64, 32], pl.FP16, pl.Mem.Mat] = pl.tile.load(e, [0, 0], [64, 32], target_memory=pl.Mem.Mat)
        c: pl.Tile[[64, 64], pl.INT32, pl.Mem.Acc] = pl.tile.matmul(am, bm)
        cb: pl.Tile[[64, 64], pl.FP16, pl.Mem.Acc] = pl.tile.cast(c, pl.FP16, mode="rint")
        d: pl.Tile[[64, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(cb, em)
        out2: pl.Tensor[[64, 32], pl.FP32] = pl.tile.store(d, [0, 0], out)"""
    before = parse(kernel(body, params, "pl.Tensor[[64, 32], pl.FP32]"))
    assert run_pass(before, "Ascend910B") is before
    assert "[perf_hint PH-AT-010] AutoTileMatmulL0: tile.cast: the int32 -> fp16 cast" in capfd.readouterr().err


def test_a_cast_read_by_another_op_is_kept_silently(capfd):
    params = E6_PARAMS + ", o: pl.Out[pl.Tensor[[64, 64], pl.BF16]]"
    body = E6_LOADS + """        cb: pl.Tile[[64, 64], pl.BF16, pl.Mem.Acc] = pl.tile.cast(c, pl.BF16, mode="rint")
        d: pl.Tile[[64, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(cb, em)
        o2: pl.Tensor[[64, 64], pl.BF16] = pl.tile.store(cb, [0, 0], o)
        out2: pl.Tensor[[64, 32], pl.FP32] = pl.tile.store(d, [0, 0], out)"""
    before = parse(kernel(body, params, "pl.Tensor[[64, 32], pl.FP32]"))
    assert run_pass(before, "Ascend910B") is before
    assert "PH-AT" not in capfd.readouterr().err


def test_a_cast_of_a_vec_tile_is_not_folded():
    params = ("a: pl.Tensor[[64, 64], pl.FP32], e: pl.Tensor[[64, 32], pl.BF16], "
              "out: pl.Out[pl.Tensor[[64, 32], pl.FP32]]")
    body = """        av: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Vec)
        em: pl.Tile[[64, 32], pl.BF16, pl.Mem.Mat] = pl.tile.load(e, [0, 0], [64, 32], target_memory=pl.Mem.Mat)
        cb: pl.Tile[[64, 64], pl.BF16, pl.Mem.Vec] = pl.tile.cast(av, pl.BF16, mode="rint")
        d: pl.Tile[[64, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(cb, em)
        out2: pl.Tensor[[64, 32], pl.FP32] = pl.tile.store(d, [0, 0], out)"""
    before = parse(kernel(body, params, "pl.Tensor[[64, 32], pl.FP32]"))
    assert run_pass(before, "Ascend910B") is before

"""AutoTileMatmulL0 (docs/passes/auto_tile_matmul_l0.md): when it acts, the K-only rewrite, the M/N grids with
direct stores, the errors and hints; each rewrite compared with the reference's printed output (structurally)
and executed before and after on the reference machine on both backends."""

from __future__ import annotations

import pytest

from pypto import ir, passes
from pypto_core.analysis.memory import tile_bytes
from pypto_core.analysis.walk import statements
from pypto_core.backend.registry import get_backend
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import MemorySpace
from pypto_core.ir.types import TileType
from pypto_plugins.pass_matmul.tests.helpers import (
    BACKENDS,
    kernel,
    matmul_kernel,
    parse,
    run_pass,
    same_results_reordered,
)

E1_PARAMS = ("a: pl.Tensor[[32, 1024], pl.BF16], b: pl.Tensor[[1024, 128], pl.BF16], "
             "out: pl.Out[pl.Tensor[[32, 128], pl.FP32]]")
E1_RET = "pl.Tensor[[32, 128], pl.FP32]"
LOADS_32x1024 = """        am: pl.Tile[[32, 1024], pl.BF16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [32, 1024], target_memory=pl.Mem.Mat)
        bm: pl.Tile[[1024, 128], pl.BF16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [1024, 128], target_memory=pl.Mem.Mat)
"""

E1_EXPECTED = LOADS_32x1024 + """        c_l0_init: pl.Tile[[32, 128], pl.FP32, pl.Mem.Acc] = pl.tile.create([32, 128], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        for c_l0_ko, (c_l0_c,) in pl.pipeline(0, 1024, 128, stage=2, init_values=(c_l0_init,)):
            c_l0_a: pl.Tile[[32, 128], pl.BF16, pl.Mem.Left, pl.TileView(blayout=pl.TileLayout.row_major)] = pl.tile.extract(am, 0, c_l0_ko, [32, 128], target_memory=pl.Mem.Left)
            c_l0_b: pl.Tile[[128, 128], pl.BF16, pl.Mem.Right] = pl.tile.extract(bm, c_l0_ko, 0, [128, 128], target_memory=pl.Mem.Right)
            if c_l0_ko == 0:
                c_l0_c_first: pl.Tile[[32, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(c_l0_a, c_l0_b)
                c_l0_c_phi: pl.Tile[[32, 128], pl.FP32, pl.Mem.Acc] = pl.yield_(c_l0_c_first)
            else:
                c_l0_c_acc: pl.Tile[[32, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(c_l0_c, c_l0_a, c_l0_b)
                c_l0_c_phi: pl.Tile[[32, 128], pl.FP32, pl.Mem.Acc] = pl.yield_(c_l0_c_acc)
            c: pl.Tile[[32, 128], pl.FP32, pl.Mem.Acc] = pl.yield_(c_l0_c_phi)
        out2: pl.Tensor[[32, 128], pl.FP32] = pl.tile.store(c, [0, 0], out)"""


def test_e1_k_only_rewrite_on_910b():
    before = matmul_kernel(32, 128, 1024)
    after = run_pass(before, "Ascend910B")
    ir.assert_structural_equal(after, parse(kernel(E1_EXPECTED, E1_PARAMS, E1_RET)))
    same_results_reordered(before, after, "Ascend910B")


E2_BODY = """        am: pl.Tile[[32, 1024], pl.BF16, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [32, 1024], target_memory=pl.Mem.Vec)
        bm: pl.Tile[[1024, 128], pl.BF16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [1024, 128], target_memory=pl.Mem.Mat)
        c0: pl.Tile[[32, 128], pl.FP32, pl.Mem.Acc] = pl.tile.create([32, 128], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        c: pl.Tile[[32, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(c0, am, bm)
        out2: pl.Tensor[[32, 128], pl.FP32] = pl.tile.store(c, [0, 0], out)"""

E2_EXPECTED = """        am: pl.Tile[[32, 1024], pl.BF16, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [32, 1024], target_memory=pl.Mem.Vec)
        bm: pl.Tile[[1024, 128], pl.BF16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [1024, 128], target_memory=pl.Mem.Mat)
        c0: pl.Tile[[32, 128], pl.FP32, pl.Mem.Acc] = pl.tile.create([32, 128], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        c_l0_lmat: pl.Tile[[32, 1024], pl.BF16, pl.Mem.Mat] = pl.tile.move(am, target_memory=pl.Mem.Mat)
        for c_l0_ko, (c_l0_c,) in pl.pipeline(0, 1024, 128, stage=2, init_values=(c0,)):
            c_l0_a: pl.Tile[[32, 128], pl.BF16, pl.Mem.Left, pl.TileView(blayout=pl.TileLayout.row_major)] = pl.tile.extract(c_l0_lmat, 0, c_l0_ko, [32, 128], target_memory=pl.Mem.Left)
            c_l0_b: pl.Tile[[128, 128], pl.BF16, pl.Mem.Right] = pl.tile.extract(bm, c_l0_ko, 0, [128, 128], target_memory=pl.Mem.Right)
            c_l0_c_acc: pl.Tile[[32, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(c_l0_c, c_l0_a, c_l0_b)
            c: pl.Tile[[32, 128], pl.FP32, pl.Mem.Acc] = pl.yield_(c_l0_c_acc)
        out2: pl.Tensor[[32, 128], pl.FP32] = pl.tile.store(c, [0, 0], out)"""


def test_e2_vec_lhs_and_caller_accumulator_on_950():
    before = parse(kernel(E2_BODY, E1_PARAMS, E1_RET))
    after = run_pass(before, "Ascend950")
    ir.assert_structural_equal(after, parse(kernel(E2_EXPECTED, E1_PARAMS, E1_RET)))
    same_results_reordered(before, after, "Ascend950")


def test_e3_k_tail_is_peeled_after_the_loop():
    before = matmul_kernel(128, 128, 464)
    after = run_pass(before, "Ascend910B")
    text = ir.python_print(after.get_function("k"))
    assert "for c_l0_ko, (c_l0_c,) in pl.pipeline(0, 384, 96, stage=2, init_values=(c_l0_init,)):" in text
    assert "c_l0_kmain: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.yield_(c_l0_c_phi)" in text
    assert ("c_l0_at: pl.Tile[[128, 80], pl.BF16, pl.Mem.Left, pl.TileView(blayout=pl.TileLayout.row_major)] = "
            "pl.tile.extract(am, 0, 384, [128, 80], target_memory=pl.Mem.Left)") in text
    assert "c_l0_bt: pl.Tile[[80, 128], pl.BF16, pl.Mem.Right] = pl.tile.extract(bm, 384, 0, [80, 128]" in text
    assert "c_l0_ct: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(c_l0_kmain, c_l0_at, c_l0_bt)" \
        in text
    assert "pl.tile.store(c_l0_ct, [0, 0], out)" in text
    same_results_reordered(before, after, "Ascend910B")


E4_PARAMS = ("a: pl.Tensor[[128, 64], pl.BF16], b: pl.Tensor[[64, 512], pl.BF16], "
             "out: pl.Out[pl.Tensor[[128, 512], pl.FP32]]")
E4_RET = "pl.Tensor[[128, 512], pl.FP32]"
E4_LOADS = """        am: pl.Tile[[128, 64], pl.BF16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [128, 64], target_memory=pl.Mem.Mat)
        bm: pl.Tile[[64, 512], pl.BF16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [64, 512], target_memory=pl.Mem.Mat)
"""
E4_ROWS_OUTER = E4_LOADS + """        for c_o, (c_oc,) in pl.pipeline(0, 128, 128, stage=2, init_values=(out,), attrs={"pipeline_overlap_stores": False}):
            c_a: pl.Tile[[128, 64], pl.BF16, pl.Mem.Left, pl.TileView(blayout=pl.TileLayout.row_major)] = pl.tile.extract(am, c_o, 0, [128, 64], target_memory=pl.Mem.Left)
            for c_i, (c_ic,) in pl.pipeline(0, 512, 256, stage=2, init_values=(c_oc,), attrs={"pipeline_overlap_stores": False}):
                c_b: pl.Tile[[64, 256], pl.BF16, pl.Mem.Right] = pl.tile.extract(bm, 0, c_i, [64, 256], target_memory=pl.Mem.Right)
                c_c: pl.Tile[[128, 256], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(c_a, c_b)
                out_t0: pl.Tensor[[128, 512], pl.FP32] = pl.tile.store(c_c, [c_o, c_i], c_ic)
                c_irv: pl.Tensor[[128, 512], pl.FP32] = pl.yield_(out_t0)
            c_orv: pl.Tensor[[128, 512], pl.FP32] = pl.yield_(c_irv)"""
E4_COLS_OUTER_DBC = E4_LOADS + """        for c_o, (c_oc,) in pl.pipeline(0, 512, 256, stage=2, init_values=(out,), attrs={"pipeline_overlap_stores": False}):
            c_b: pl.Tile[[64, 256], pl.BF16, pl.Mem.Right] = pl.tile.extract(bm, 0, c_o, [64, 256], target_memory=pl.Mem.Right)
            for c_i, (c_ic,) in pl.pipeline(0, 128, 64, stage=2, init_values=(c_oc,), attrs={"pipeline_overlap_stores": False, "pipeline_double_buffer_c": True}):
                c_a: pl.Tile[[64, 64], pl.BF16, pl.Mem.Left, pl.TileView(blayout=pl.TileLayout.row_major)] = pl.tile.extract(am, c_i, 0, [64, 64], target_memory=pl.Mem.Left)
                c_c: pl.Tile[[64, 256], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(c_a, c_b)
                out_t0: pl.Tensor[[128, 512], pl.FP32] = pl.tile.store(c_c, [c_i, c_o], c_ic)
                c_irv: pl.Tensor[[128, 512], pl.FP32] = pl.yield_(out_t0)
            c_orv: pl.Tensor[[128, 512], pl.FP32] = pl.yield_(c_irv)"""


@pytest.mark.parametrize("context, expected", [
    ({}, E4_ROWS_OUTER),
    ({"memory_planner": passes.MemoryPlanner.PTOAS}, E4_COLS_OUTER_DBC),
    ({"memory_planner": passes.MemoryPlanner.DSA_RP}, E4_COLS_OUTER_DBC),
    ({"enable_pypto_l0c_double_buffer": True}, E4_COLS_OUTER_DBC),
], ids=["pypto", "ptoas", "dsa_rp", "pypto_l0c_double_buffer"])
def test_e4_full_k_nested_pipelines_store_directly(context, expected):
    before = matmul_kernel(128, 512, 64)
    after = run_pass(before, "Ascend910B", **context)
    ir.assert_structural_equal(after, parse(kernel(expected, E4_PARAMS, E4_RET, result="c_orv")))
    same_results_reordered(before, after, "Ascend910B")


def test_e5_split_k_grid_stores_each_tile_and_chains_the_tensor():
    before = matmul_kernel(256, 256, 256)
    after = run_pass(before, "Ascend910B")
    text = ir.python_print(after.get_function("k"))
    for s, row in ((0, 0), (1, 128)):
        assert f"c_t{s}_l0_init: pl.Tile[[128, 256], pl.FP32, pl.Mem.Acc]" in text
        assert f"for c_t{s}_l0_ko, (c_t{s}_l0_c,) in pl.pipeline(0, 256, 64, stage=2" in text
        assert f"pl.tile.extract(am, {row}, c_t{s}_l0_ko, [128, 64], target_memory=pl.Mem.Left)" in text
    assert "out_t0: pl.Tensor[[256, 256], pl.FP32] = pl.tile.store(c_t0, [0, 0], out)" in text
    assert "out_t1: pl.Tensor[[256, 256], pl.FP32] = pl.tile.store(c_t1, [128, 0], out_t0)" in text
    assert text.rstrip().endswith("return out_t1")
    same_results_reordered(before, after, "Ascend910B")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("shape", [(32, 128, 1024), (128, 128, 464), (128, 512, 64), (256, 256, 256),
                                   (160, 544, 64), (96, 320, 384)])
def test_every_rewrite_computes_the_same_outputs(backend, shape):
    before = matmul_kernel(*shape)
    after = run_pass(before, backend)
    same_results_reordered(before, after, backend)


def _l0_tiles(program: ir.Program) -> list[tuple[str, TileType]]:
    out = []
    for stmt in statements(program.get_function("k").body):
        if isinstance(stmt, S.AssignStmt) and isinstance(stmt.var.type, TileType) and \
                stmt.var.type.memory_space in (MemorySpace.Left, MemorySpace.Right, MemorySpace.Acc):
            out.append((stmt.var.name_hint, stmt.var.type))
    return out


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_512_cubed_fp32_matmul_becomes_l0_tiles_that_fit(backend):
    before = matmul_kernel(512, 512, 512, dtype="FP32")
    after = run_pass(before, backend)
    be = get_backend(backend)
    tiles = _l0_tiles(after)
    assert tiles and all(t.shape[0].value < 512 or t.shape[1].value < 512 for _, t in tiles)
    for name, t in tiles:
        assert tile_bytes(t, be) <= be.capacity(t.memory_space), (name, t)
    same_results_reordered(before, after, backend)


# -- when the pass does not act ----------------------------------------------------------------------------------

def test_a_matmul_that_fits_is_left_as_written():
    before = matmul_kernel(32, 128, 128)
    assert run_pass(before, "Ascend910B") is before


def test_k_off_the_fractal_is_a_hint_and_left_as_written(capfd):
    before = matmul_kernel(32, 128, 1000)
    assert run_pass(before, "Ascend910B") is before
    err = capfd.readouterr().err
    assert "[perf_hint PH-AT-007] AutoTileMatmulL0: tile.matmul: K=1000 is not a multiple of the cube fractal 16" \
        in err


def test_a_shape_the_chooser_rejects_is_a_hint_and_left_as_written(capfd):
    before = matmul_kernel(8, 128, 1024)
    assert run_pass(before, "Ascend910B") is before
    err = capfd.readouterr().err
    assert "[perf_hint PH-AT-005] AutoTileMatmulL0: tile.matmul: ChooseL0Tile rejected configuration — left " \
           "untouched. ChooseL0Tile: allow_padding=false but M=8" in err


def test_a_result_with_another_consumer_is_a_hint_and_left_as_written(capfd):
    params = ("a: pl.Tensor[[256, 256], pl.BF16], b: pl.Tensor[[256, 256], pl.BF16], "
              "out: pl.Out[pl.Tensor[[256, 256], pl.FP32]], o2: pl.Out[pl.Tensor[[256, 256], pl.FP32]]")
    body = """        am: pl.Tile[[256, 256], pl.BF16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [256, 256], target_memory=pl.Mem.Mat)
        bm: pl.Tile[[256, 256], pl.BF16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [256, 256], target_memory=pl.Mem.Mat)
        c: pl.Tile[[256, 256], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(am, bm)
        out2: pl.Tensor[[256, 256], pl.FP32] = pl.tile.store(c, [0, 0], out)
        o3: pl.Tensor[[256, 256], pl.FP32] = pl.tile.store(c, [0, 0], o2)"""
    before = parse(kernel(body, params, "pl.Tensor[[256, 256], pl.FP32]"))
    assert run_pass(before, "Ascend910B") is before
    assert "PH-AT-006" in capfd.readouterr().err


def test_only_kernel_functions_are_rewritten():
    src = kernel(LOADS_32x1024 + """        c: pl.Tile[[32, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(am, bm)
        out2: pl.Tensor[[32, 128], pl.FP32] = pl.tile.store(c, [0, 0], out)""", E1_PARAMS, E1_RET)
    aic = parse(src.replace("pl.FunctionType.InCore", "pl.FunctionType.AIC"))
    assert run_pass(aic, "Ascend910B") is not aic
    opaque = parse(src.replace("@pl.function(type=pl.FunctionType.InCore)", "@pl.function(type=pl.FunctionType.Opaque)"))
    assert run_pass(opaque, "Ascend910B") is opaque


def test_a_matmul_in_a_loop_body_is_rewritten_there():
    params = ("a: pl.Tensor[[64, 1024], pl.BF16], b: pl.Tensor[[1024, 128], pl.BF16], "
              "out: pl.Out[pl.Tensor[[64, 128], pl.FP32]]")
    body = """        for i, (o,) in pl.range(0, 64, 32, init_values=(out,)):
            am: pl.Tile[[32, 1024], pl.BF16, pl.Mem.Mat] = pl.tile.load(a, [i, 0], [32, 1024], target_memory=pl.Mem.Mat)
            bm: pl.Tile[[1024, 128], pl.BF16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [1024, 128], target_memory=pl.Mem.Mat)
            c: pl.Tile[[32, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(am, bm)
            o2: pl.Tensor[[64, 128], pl.FP32] = pl.tile.store(c, [i, 0], o)
            out2: pl.Tensor[[64, 128], pl.FP32] = pl.yield_(o2)"""
    before = parse(kernel(body, params, "pl.Tensor[[64, 128], pl.FP32]"))
    after = run_pass(before, "Ascend910B")
    text = ir.python_print(after.get_function("k"))
    assert "for c_l0_ko, (c_l0_c,) in pl.pipeline(0, 1024, 128, stage=2" in text
    assert "pl.tile.store(c, [i, 0], o)" in text
    same_results_reordered(before, after, "Ascend910B")


# -- errors --------------------------------------------------------------------------------------------------------

RIGHT_256_PARAMS = ("a: pl.Tensor[[64, 256], pl.FP16], b: pl.Tensor[[256, 256], pl.FP16], "
                    "out: pl.Out[pl.Tensor[[64, 256], pl.FP32]]")
RIGHT_256_BODY = """        am: pl.Tile[[64, 256], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [64, 256], target_memory=pl.Mem.Mat)
        bm: pl.Tile[[256, 256], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [256, 256], target_memory=pl.Mem.Mat)
        br: pl.Tile[[256, 256], pl.FP16, pl.Mem.Right] = pl.tile.move(bm, target_memory=pl.Mem.Right)
        c: pl.Tile[[64, 256], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(am, br)
        out2: pl.Tensor[[64, 256], pl.FP32] = pl.tile.store(c, [0, 0], out)"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_oversized_explicit_right_operand_is_a_located_error(backend):
    program = parse(kernel(RIGHT_256_BODY, RIGHT_256_PARAMS, "pl.Tensor[[64, 256], pl.FP32]"))
    with pytest.raises(ValueError) as info:
        run_pass(program, backend)
    message = str(info.value)
    assert ("tile.matmul right operand 'br' is already resident in Right (L0B) with physical shape [256, 256] and "
            "dtype fp16, requiring 131072 bytes, but the active backend provides 65536 bytes. AutoTileMatmulL0 does "
            "not retile operands already placed in Left or Right. Keep this operand in Mat and pass it directly to "
            "tile.matmul so AutoTileMatmulL0 can choose legal L0 tiles, or manually extract a smaller Right tile."
            ) in message
    assert ":10:" in message  # the matmul's line


def test_a_legal_explicit_l0_operand_is_left_as_written():
    body = RIGHT_256_BODY.replace("[256, 256], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [256, 256]",
                                  "[256, 128], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [256, 128]")
    body = body.replace("br: pl.Tile[[256, 256]", "br: pl.Tile[[256, 128]").replace("[64, 256], pl.FP32, pl.Mem.Acc",
                                                                                  "[64, 128], pl.FP32, pl.Mem.Acc")
    body = body.replace("out2: pl.Tensor[[64, 256]", "out2: pl.Tensor[[64, 128]")
    params = RIGHT_256_PARAMS.replace("b: pl.Tensor[[256, 256]", "b: pl.Tensor[[256, 128]").replace(
        "out: pl.Out[pl.Tensor[[64, 256]", "out: pl.Out[pl.Tensor[[64, 128]")
    program = parse(kernel(body, params, "pl.Tensor[[64, 128], pl.FP32]"))
    assert run_pass(program, "Ascend910B") is program


# -- INT32 accumulators ------------------------------------------------------------------------------------------

def int8_kernel(m: int, n: int, k: int) -> ir.Program:
    params = (f"a: pl.Tensor[[{m}, {k}], pl.INT8], b: pl.Tensor[[{k}, {n}], pl.INT8], "
              f"out: pl.Out[pl.Tensor[[{m}, {n}], pl.INT32]]")
    body = f"""        am: pl.Tile[[{m}, {k}], pl.INT8, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [{m}, {k}], target_memory=pl.Mem.Mat)
        bm: pl.Tile[[{k}, {n}], pl.INT8, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [{k}, {n}], target_memory=pl.Mem.Mat)
        c: pl.Tile[[{m}, {n}], pl.INT32, pl.Mem.Acc] = pl.tile.matmul(am, bm)
        out2: pl.Tensor[[{m}, {n}], pl.INT32] = pl.tile.store(c, [0, 0], out)"""
    return parse(kernel(body, params, f"pl.Tensor[[{m}, {n}], pl.INT32]"))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("shape", [(16, 1152, 256), (48, 2048, 128), (16, 128, 8192)])
def test_int32_accumulators_fit_l0c_with_their_row_alignment(backend, shape):
    """Ascend910B pads an INT32 Acc tile to 32 rows: a 16-row tile holds as much L0C as a 32-row one, so the
    chooser takes narrower N tiles there than on Ascend950; every Acc tile fits at its padded size, and the
    integer results are exact."""
    before = int8_kernel(*shape)
    after = run_pass(before, backend)
    be = get_backend(backend)
    tiles = _l0_tiles(after)
    assert tiles
    for name, t in tiles:
        assert tile_bytes(t, be) <= be.capacity(t.memory_space), (name, t)
    if shape == (16, 1152, 256):
        widest = max(t.shape[1].value for _, t in tiles if t.memory_space is MemorySpace.Acc)
        assert widest == (768 if backend == "Ascend910B" else 1152)  # 32 x 1152 x 4 bytes exceed 128 KiB
    same_results_reordered(before, after, backend)

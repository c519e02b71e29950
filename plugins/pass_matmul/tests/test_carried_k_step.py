"""A user K loop whose accumulator fits L0C but whose per-step matmuls the chooser K-tiles
(docs/passes/auto_tile_matmul_l0.md, user K steps on their loop's carry): the step's if becomes one K loop
carried on the user's accumulator, whose first block is a fresh matmul only on the user's first step, so the
planned kernel keeps one L0C accumulator. Structural, executed after the pass, and through the default
pipeline on both backends (planned: one Acc allocation; outputs equal the source's)."""

from __future__ import annotations

import numpy as np
import pytest

from pypto import ir, passes
from pypto_core.analysis.walk import statements
from pypto_core.interp import make_inputs, run_program
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import MemorySpace
from pypto_plugins.pass_matmul.tests.helpers import (
    BACKENDS,
    MATMUL_ATOL,
    MATMUL_RTOL,
    kernel,
    parse,
    run_pass,
    same_results_reordered,
)
from pypto_plugins.pass_matmul.tests.test_split_k_prepass import user_k_loop
from pypto_plugins.pass_matmul.tests.test_tensor_level_matmul_pipeline import default_pipeline

PARAMS = ("a: pl.Tensor[[128, 256], pl.BF16], b: pl.Tensor[[256, 512], pl.BF16], "
          "out: pl.Out[pl.Tensor[[128, 512], pl.FP32]]")
RET = "pl.Tensor[[128, 512], pl.FP32]"


def _expected_950(first_when: str) -> str:
    return f"""        acc0: pl.Tile[[128, 512], pl.FP32, pl.Mem.Acc] = pl.tile.create([128, 512], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        for ko, (acc,) in pl.pipeline(0, 256, 128, init_values=(acc0,), stage=2):
            am: pl.Tile[[128, 128], pl.BF16, pl.Mem.Mat] = pl.tile.load(a, [0, ko], [128, 128], [128, 128], target_memory=pl.Mem.Mat)
            bm: pl.Tile[[128, 512], pl.BF16, pl.Mem.Mat] = pl.tile.load(b, [ko, 0], [128, 512], [128, 512], target_memory=pl.Mem.Mat)
            for c1_l0_ko, (c1_l0_c,) in pl.pipeline(0, 128, 32, stage=2, init_values=(acc,)):
                c1_l0_a: pl.Tile[[128, 32], pl.BF16, pl.Mem.Left, pl.TileView(blayout=pl.TileLayout.row_major)] = pl.tile.extract(am, 0, c1_l0_ko, [128, 32], target_memory=pl.Mem.Left)
                c1_l0_b: pl.Tile[[32, 512], pl.BF16, pl.Mem.Right] = pl.tile.extract(bm, c1_l0_ko, 0, [32, 512], target_memory=pl.Mem.Right)
                if c1_l0_ko == 0 and {first_when}:
                    c1_l0_c_first: pl.Tile[[128, 512], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(c1_l0_a, c1_l0_b)
                    c1_l0_c_phi: pl.Tile[[128, 512], pl.FP32, pl.Mem.Acc] = pl.yield_(c1_l0_c_first)
                else:
                    c1_l0_c_acc: pl.Tile[[128, 512], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(c1_l0_c, c1_l0_a, c1_l0_b)
                    c1_l0_c_phi: pl.Tile[[128, 512], pl.FP32, pl.Mem.Acc] = pl.yield_(c1_l0_c_acc)
                cp: pl.Tile[[128, 512], pl.FP32, pl.Mem.Acc] = pl.yield_(c1_l0_c_phi)
            r: pl.Tile[[128, 512], pl.FP32, pl.Mem.Acc] = pl.yield_(cp)
        out2: pl.Tensor[[128, 512], pl.FP32] = pl.tile.store(r, [0, 0], out)"""


@pytest.mark.parametrize("swapped, first_when", [(False, "ko == 0"), (True, "not ko != 0")])
def test_the_step_becomes_one_k_loop_on_the_carried_accumulator(swapped: bool, first_when: str):
    """Ascend950, [128, 256] x [256, 512] BF16 in 128-wide K steps: the [128, 512] FP32 accumulator fills L0C,
    each step's [128, 128] x [128, 512] matmul is K-tiled by 32. Either branch order."""
    before = user_k_loop(128, 512, 256, 128, swapped=swapped)
    after = run_pass(before, "Ascend950")
    ir.assert_structural_equal(after, parse(kernel(_expected_950(first_when), PARAMS, RET)))
    same_results_reordered(before, after, "Ascend950")


def test_one_full_block_and_a_tail_choose_the_first_block_by_the_users_condition():
    """Ascend910B, K steps of 176 tiled by 96: one full block (straight-line) and a tail of 80; the first
    block is a fresh matmul on the user's first step, accumulated onto the carry on the others."""
    before = user_k_loop(128, 128, 352, 176)
    after = run_pass(before, "Ascend910B")
    text = ir.python_print(after.get_function("k"))
    assert """        if ko == 0:
            c1_l0_c0_first: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(c1_l0_a0, c1_l0_b0)
            c1_l0_c0: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.yield_(c1_l0_c0_first)
        else:
            c1_l0_c0_acc: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(acc, c1_l0_a0, c1_l0_b0)
            c1_l0_c0: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.yield_(c1_l0_c0_acc)""" in text
    assert "c1_l0_ct: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(c1_l0_c0, c1_l0_at, c1_l0_bt)" in text
    assert "r: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.yield_(c1_l0_ct)" in text
    same_results_reordered(before, after, "Ascend910B")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("shape", [(128, 512, 256, 128), (64, 256, 480, 240), (64, 512, 288, 144),
                                   (32, 512, 320, 160), (128, 128, 352, 176)])
@pytest.mark.parametrize("swapped", [False, True])
def test_every_merged_step_computes_the_same_outputs(backend: str, shape: tuple[int, ...], swapped: bool):
    before = user_k_loop(*shape, swapped=swapped)
    after = run_pass(before, backend)
    assert "l0_init" not in ir.python_print(after)
    same_results_reordered(before, after, backend)


def _step_kernel(then_branch: str, extra: str = "") -> ir.Program:
    """The 950 user loop with its first branch replaced (and `extra` statements before the if)."""
    body = f"""        acc0: pl.Tile[[128, 512], pl.FP32, pl.Mem.Acc] = pl.tile.create([128, 512], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        for ko, (acc,) in pl.pipeline(0, 256, 128, init_values=(acc0,), stage=2):
            am: pl.Tile[[128, 128], pl.BF16, pl.Mem.Mat] = pl.tile.load(a, [0, ko], [128, 128], target_memory=pl.Mem.Mat)
            am2: pl.Tile[[128, 128], pl.BF16, pl.Mem.Mat] = pl.tile.load(a, [0, ko], [128, 128], target_memory=pl.Mem.Mat)
            bm: pl.Tile[[128, 512], pl.BF16, pl.Mem.Mat] = pl.tile.load(b, [ko, 0], [128, 512], target_memory=pl.Mem.Mat)
{extra}            if ko == 0:
{then_branch}                cp: pl.Tile[[128, 512], pl.FP32, pl.Mem.Acc] = pl.yield_(c1)
            else:
                c2: pl.Tile[[128, 512], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(acc, am, bm)
                cp: pl.Tile[[128, 512], pl.FP32, pl.Mem.Acc] = pl.yield_(c2)
            r: pl.Tile[[128, 512], pl.FP32, pl.Mem.Acc] = pl.yield_(cp)
        out2: pl.Tensor[[128, 512], pl.FP32] = pl.tile.store(r, [0, 0], out)"""
    return parse(kernel(body, PARAMS, RET))


MATMUL = "                c1: pl.Tile[[128, 512], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(am, bm)\n"


@pytest.mark.parametrize("then_branch, extra", [
    (MATMUL.replace("matmul(am, bm)", "matmul(am2, bm)"), ""),  # other operands: not one K step
    (MATMUL + "                d: pl.Tile[[128, 512], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(am, bm)\n", ""),
    # the carry is read elsewhere in the body: its buffer is not free to accumulate in
    (MATMUL, "            o: pl.Tile[[128, 512], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(acc, am2, bm)\n"),
], ids=["other_operands", "second_statement", "carry_read_elsewhere"])
def test_other_ifs_are_tiled_branch_by_branch(then_branch: str, extra: str):
    before = _step_kernel(then_branch, extra)
    after = run_pass(before, "Ascend950")
    text = ir.python_print(after.get_function("k"))
    assert "c1_l0_init" in text and " and " not in text
    same_results_reordered(before, after, "Ascend950")


def test_a_step_that_fits_l0_is_left_as_written():
    before = user_k_loop(64, 128, 256, 128)
    assert run_pass(before, "Ascend950") is before


def _acc_allocations(program: ir.Program) -> list[S.AssignStmt]:
    return [s for f in program.functions.values() for s in statements(f.body)
            if isinstance(s, S.AssignStmt) and "tile.alloc" in ir.python_print(s.value)
            and "pl.Mem.Acc" in ir.python_print(s.value)]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("shape", [(128, 512, 256, 128), (128, 128, 352, 176), (64, 256, 480, 240)])
def test_the_default_pipeline_plans_one_accumulator_and_computes_a_at_b(backend: str, shape: tuple[int, ...]):
    """The issue's case ([128, 256] x [256, 512] BF16, 128-wide steps; on Ascend910B the accumulator is
    larger than L0C, so the split-K pre-pass copies the loop per output tile first), a one-block-and-tail
    step, and a tiled step with a tail: compiled and planned, then run by address."""
    m, n, k, _ = shape
    before = user_k_loop(*shape)
    after = default_pipeline(backend).run(before)
    allocations = _acc_allocations(after)
    assert len(allocations) == 1, ir.python_print(after)  # the pre-pass's copies run one after the other
    for s in statements(after):
        t = getattr(getattr(s, "var", None), "type", None)
        if getattr(t, "memory_space", None) is MemorySpace.Acc:
            assert "l0_init" not in s.var.name_hint
    with passes.PassContext([], backend=backend):
        inputs = make_inputs(before.get_function("main"), seed=3)
        got = run_program(after, inputs, "main")
    a = np.asarray(inputs["a"], dtype=np.float64)
    b = np.asarray(inputs["b"], dtype=np.float64)
    assert a.shape == (m, k) and set(got) == {"out", "return"}
    for value in got.values():
        np.testing.assert_allclose(np.asarray(value, dtype=np.float64), a @ b, rtol=MATMUL_RTOL, atol=MATMUL_ATOL)

"""InferTileMemorySpace, loop-invariant Mat residency (docs/passes/infer_tile_memory_space.md): compiler-made
GM -> Mat matmul operand loads of proven-safe inputs, and the L0 moves fed by them, go before a sequential loop
that reads them unchanged; one loop level per run; the capacity guard, the loop gate and the scan's stops
keep them in place. Before -> Expected compared structurally, each case also run on the reference machine;
the whole default pipeline on both backends keeps the outputs."""

from __future__ import annotations

import pytest

import pypto.language as pl
from pypto import ir, passes
from pypto_core.testing import same_results

from .helpers import BACKENDS, HEADER, compiled, function

MARK = 'attrs={"__compiler_tensor_to_tile_mat_bridge": True}'

# The kernel reads `lhs` (made by `fill` in main) and a K x 256 `rhs` slab per n.
KERNEL = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def fill(self, src: pl.Tensor[[16, 128], pl.BF16], dst: pl.Out[pl.Tensor[[16, 128], pl.BF16]]) -> pl.Tensor[[16, 128], pl.BF16]:
        t = pl.tile.load(src, [0, 0], [16, 128], [16, 128], target_memory=pl.Mem.Vec)
        dst = pl.tile.store(t, [0, 0], dst)
        return dst

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, lhs: pl.Tensor[[16, 128], pl.BF16], rhs: pl.Tensor[[128, 256], pl.BF16], out: pl.Out[pl.Tensor[[16, 256], pl.FP32]]) -> pl.Tensor[[16, 256], pl.FP32]:
        for n, (acc,) in pl.range(0, 256, 128, init_values=(out,)):
BODY
            result = pl.yield_(acc_next)
        return result

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, src: pl.Tensor[[16, 128], pl.BF16], rhs: pl.Tensor[[128, 256], pl.BF16], out: pl.Out[pl.Tensor[[16, 256], pl.FP32]]) -> pl.Tensor[[16, 256], pl.FP32]:
        fresh = pl.create_tensor([16, 128], dtype=pl.BF16)
        filled = self.fill(src, fresh)
        result = self.kernel(LHS_ACTUAL, rhs, out)
        return result
'''

CHAIN = f'''
            rhs_n = pl.tile.load(rhs, [0, n], [128, 128], [128, 128], target_memory=pl.Mem.Mat, {MARK})
            lhs_m = pl.tile.load(lhs, [0, 0], [16, 128], [16, 128], target_memory=pl.Mem.Mat, {MARK})
            c_n = pl.tile.matmul(lhs_m, rhs_n)
            acc_next = pl.tile.store(c_n, [0, n], acc)'''

CHAIN_HOISTED = '''
        lhs_m = pl.tile.load(lhs, [0, 0], [16, 128], [16, 128], target_memory=pl.Mem.Mat)
        lhs_m_Left = pl.tile.move(lhs_m, target_memory=pl.Mem.Left)
        for n, (acc,) in pl.range(0, 256, 128, init_values=(out,)):
            rhs_n = pl.tile.load(rhs, [0, n], [128, 128], [128, 128], target_memory=pl.Mem.Mat)
            rhs_n_Right = pl.tile.move(rhs_n, target_memory=pl.Mem.Right)
            c_n = pl.tile.matmul(lhs_m_Left, rhs_n_Right)
            acc_next = pl.tile.store(c_n, [0, n], acc)'''

CHAIN_KEPT = '''
        for n, (acc,) in pl.range(0, 256, 128, init_values=(out,)):
            rhs_n = pl.tile.load(rhs, [0, n], [128, 128], [128, 128], target_memory=pl.Mem.Mat)
            lhs_m = pl.tile.load(lhs, [0, 0], [16, 128], [16, 128], target_memory=pl.Mem.Mat)
            lhs_m_Left = pl.tile.move(lhs_m, target_memory=pl.Mem.Left)
            rhs_n_Right = pl.tile.move(rhs_n, target_memory=pl.Mem.Right)
            c_n = pl.tile.matmul(lhs_m_Left, rhs_n_Right)
            acc_next = pl.tile.store(c_n, [0, n], acc)'''


def program(body: str, lhs_actual: str = "fresh") -> str:
    return KERNEL.replace("BODY", body.strip("\n")).replace("LHS_ACTUAL", lhs_actual)


def expected(kernel_lines: str, lhs_actual: str = "fresh") -> str:
    """The source with the kernel's loop header and body replaced by `kernel_lines`."""
    src = program("", lhs_actual)
    header = "        for n, (acc,) in pl.range(0, 256, 128, init_values=(out,)):\n"
    return src.replace(header, kernel_lines.strip("\n") + "\n")


def infer(src: str, backend: str = "Ascend910B") -> ir.Program:
    before = passes.convert_to_ssa()(pl.parse(HEADER + src))
    with passes.PassContext([], backend=backend):
        after = passes.infer_tile_memory_space()(before)
    same_results(before, after)
    return after


def expect(after: ir.Program, src: str) -> None:
    ir.assert_structural_equal(after, passes.convert_to_ssa()(pl.parse(HEADER + src)))


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_exact_chain_of_a_safe_input_goes_before_the_loop(backend: str):
    expect(infer(program(CHAIN), backend), expected(CHAIN_HOISTED))


def test_an_input_main_was_given_is_no_proof_nothing_moves():
    expect(infer(program(CHAIN, "src")), expected(CHAIN_KEPT, "src"))


def test_a_load_the_program_placed_itself_is_not_a_bridge_load():
    unmarked = CHAIN.replace(f"[16, 128], target_memory=pl.Mem.Mat, {MARK})", "[16, 128], target_memory=pl.Mem.Mat)")
    expect(infer(program(unmarked)), expected(CHAIN_KEPT))


def test_a_load_left_without_a_space_is_a_bridge_load():
    deferred = CHAIN.replace(f"[16, 128], target_memory=pl.Mem.Mat, {MARK})", "[16, 128], target_memory=None)")
    expect(infer(program(deferred)), expected(CHAIN_HOISTED))


def test_an_ordering_op_in_the_loop_keeps_everything_in_it():
    fenced = CHAIN + "\n            pl.system.fence()"
    expect(infer(program(fenced)), expected(CHAIN_KEPT + "\n            pl.system.fence()"))


def test_a_parallel_loop_does_not_qualify():
    par = "pl.parallel(0, 256, 128, init_values=(out,))"
    src = program(CHAIN).replace("pl.range(0, 256, 128, init_values=(out,))", par)
    expect(infer(src), expected(CHAIN_KEPT.replace("pl.range(0, 256, 128, init_values=(out,))", par)))


ZERO = "            z = pl.tile.full([16, 128], dtype=pl.FP32, value=0.0)\n"
STORE_Z = "            acc0 = pl.tile.store(z, [0, n], acc)\n"


def test_an_effect_before_the_chain_ends_the_scan():
    body = ZERO + STORE_Z + CHAIN.strip("\n").replace("[0, n], acc)", "[0, n], acc0)")
    kept = CHAIN_KEPT.replace("[0, n], acc)", "[0, n], acc0)")
    kept = kept.replace("init_values=(out,)):\n", "init_values=(out,)):\n" + ZERO + STORE_Z)
    expect(infer(program(body)), expected(kept))


def test_a_pure_statement_before_the_chain_is_passed_over():
    body = ZERO + CHAIN.strip("\n") + "\n            acc_z = pl.tile.store(z, [0, n], acc_next)"
    body = body.replace("acc_next = pl.tile.store(c_n", "acc_mid = pl.tile.store(c_n").replace(
        "[0, n], acc_next)", "[0, n], acc_mid)").replace("acc_z = ", "acc_next = ")
    hoisted = CHAIN_HOISTED.replace("init_values=(out,)):\n", "init_values=(out,)):\n" + ZERO)
    hoisted = hoisted.replace("acc_next = pl.tile.store(c_n", "acc_mid = pl.tile.store(c_n") + \
        "\n            acc_next = pl.tile.store(z, [0, n], acc_mid)"
    expect(infer(program(body)), expected(hoisted))


BIG = ("        big = pl.tile.load(rhs, [0, 0], [128, 256], [128, 256], target_memory=pl.Mem.Mat)\n"
       "        big2 = pl.tile.load(rhs, [0, 0], [128, 256], [128, 256], target_memory=pl.Mem.Mat)\n"
       "        big3 = pl.tile.load(rhs, [0, 0], [128, 256], [128, 256], target_memory=pl.Mem.Mat)\n"
       "        big4 = pl.tile.load(rhs, [0, 0], [128, 256], [128, 256], target_memory=pl.Mem.Mat)\n")


def test_the_mat_capacity_guard_counts_every_owned_mat_tile_of_the_function():
    # Four 64 KiB panels + 4 KiB lhs + the 32 KiB rhs slab fit 512 KiB: hoisted; eight do not: kept.
    four = program(CHAIN).replace("        for n, (acc,)", BIG + "        for n, (acc,)")
    expect(infer(four), expected(BIG + CHAIN_HOISTED.strip("\n")))
    eight_big = BIG + BIG.replace("big", "bog")
    eight = program(CHAIN).replace("        for n, (acc,)", eight_big + "        for n, (acc,)")
    expect(infer(eight), expected(eight_big + CHAIN_KEPT.strip("\n")))


NESTED_BODY = f'''
            for m, (acc2,) in pl.range(0, 2, 1, init_values=(acc,)):
                rhs_n = pl.tile.load(rhs, [0, n], [128, 128], [128, 128], target_memory=pl.Mem.Mat, {MARK})
                lhs_m = pl.tile.load(lhs, [0, 0], [16, 128], [16, 128], target_memory=pl.Mem.Mat, {MARK})
                c_n = pl.tile.matmul(lhs_m, rhs_n)
                inner = pl.tile.store(c_n, [0, n], acc2)
                inner_r = pl.yield_(inner)
            acc_next = inner_r'''


def test_a_chain_moves_one_loop_level_per_run():
    # lhs (made by main) leaves the inner loop only; rhs (main's own input) is no proof and stays.
    after = infer(program(NESTED_BODY))
    hoisted = '''
        for n, (acc,) in pl.range(0, 256, 128, init_values=(out,)):
            lhs_m = pl.tile.load(lhs, [0, 0], [16, 128], [16, 128], target_memory=pl.Mem.Mat)
            lhs_m_Left = pl.tile.move(lhs_m, target_memory=pl.Mem.Left)
            for m, (acc2,) in pl.range(0, 2, 1, init_values=(acc,)):
                rhs_n = pl.tile.load(rhs, [0, n], [128, 128], [128, 128], target_memory=pl.Mem.Mat)
                rhs_n_Right = pl.tile.move(rhs_n, target_memory=pl.Mem.Right)
                c_n = pl.tile.matmul(lhs_m_Left, rhs_n_Right)
                inner = pl.tile.store(c_n, [0, n], acc2)
                inner_r = pl.yield_(inner)
            acc_next = inner_r'''
    expect(after, expected(hoisted))
    # The marker is gone after the run, so a second run moves nothing further (idempotent).
    with passes.PassContext([], backend="Ascend910B"):
        again = passes.infer_tile_memory_space()(after)
    ir.assert_structural_equal(again, after)


PANEL = f'''
            rhs_n = pl.tile.load(rhs, [0, n], [128, 128], [128, 128], target_memory=pl.Mem.Mat, {MARK})
            lhs_m = pl.tile.load(lhs, [0, 0], [16, 128], [16, 128], target_memory=pl.Mem.Mat, {MARK})
            lhs_l = pl.tile.move(lhs_m, target_memory=pl.Mem.Left)
            rhs_r = pl.tile.move(rhs_n, target_memory=pl.Mem.Right)
            c_1 = pl.tile.matmul(lhs_l, rhs_r)
            c_n = pl.tile.matmul_acc(c_1, lhs_l, rhs_r)
            acc_next = pl.tile.store(c_n, [0, n], acc)'''


def test_a_panel_load_read_by_a_shared_move_goes_alone():
    after = infer(program(PANEL))
    lines = PANEL.strip("\n").splitlines()
    hoisted = "        " + lines[1].strip().replace(f", {MARK}", "") + "\n" + \
        "        for n, (acc,) in pl.range(0, 256, 128, init_values=(out,)):\n" + \
        "\n".join([lines[0].replace(f", {MARK}", ""), *lines[2:]])
    expect(after, expected(hoisted))


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_lhs_left_move_leaves_the_loop_in_the_default_pipeline(backend: str):
    # Same outputs as the source (compiled runs both); the Left move is made once, before `for n`.
    text = [line.strip() for line in
            ir.python_print(function(compiled(HEADER + TENSOR_LEVEL, backend), "kernel"), format=False).splitlines()]
    move = next(i for i, line in enumerate(text) if "target_memory=pl.Mem.Left" in line)
    loop = next(i for i, line in enumerate(text) if line.startswith("for n"))
    right = next(i for i, line in enumerate(text) if "target_memory=pl.Mem.Right" in line)
    assert move < loop < right, text


TENSOR_LEVEL = '''
@pl.program
class Prog:
    @pl.function(type=pl.FunctionType.InCore)
    def fill(self, src: pl.Tensor[[16, 128], pl.BF16], dst: pl.Out[pl.Tensor[[16, 128], pl.BF16]]) -> pl.Tensor[[16, 128], pl.BF16]:
        t = pl.load(src, [0, 0], [16, 128])
        dst = pl.store(t, [0, 0], dst)
        return dst

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, lhs: pl.Tensor[[16, 128], pl.BF16], rhs: pl.Tensor[[128, 256], pl.BF16], out: pl.Out[pl.Tensor[[16, 256], pl.FP32]]) -> pl.Tensor[[16, 256], pl.FP32]:
        for n, (acc,) in pl.range(0, 256, 128, init_values=(out,)):
            rhs_n = pl.slice(rhs, [128, 128], [0, n])
            c_n = pl.matmul(lhs, rhs_n, out_dtype=pl.FP32)
            acc_next = pl.assemble(acc, c_n, [0, n])
            result = pl.yield_(acc_next)
        return result

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, src: pl.Tensor[[16, 128], pl.BF16], rhs: pl.Tensor[[128, 256], pl.BF16], out: pl.Out[pl.Tensor[[16, 256], pl.FP32]]) -> pl.Tensor[[16, 256], pl.FP32]:
        fresh = pl.create_tensor([16, 128], dtype=pl.BF16)
        filled = self.fill(src, fresh)
        result = self.kernel(fresh, rhs, out)
        return result
'''

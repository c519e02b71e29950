"""Accumulator if-phi coalescing (docs/passes/memory_reuse.md and docs/passes/materialize_semantic_aliases.md):
a branch yielding an in-place accumulator result pulls the other branch's seed onto its Acc buffer, so no
Acc -> Acc move is needed. MemoryReuse does it under PYPTO, MaterializeSemanticAliases under DSA_RP; a refused
retarget is the InternalError. Every program is run by address, down both branches, before and after."""

from __future__ import annotations

import numpy as np
import pytest

import pypto.language as pl
from pypto import ir, passes
from pypto_core.errors import InternalError
from pypto_core.passes.instruments.assemble import pass_test_instruments
from pypto_plugins.pass_memory.tests.helpers import BACKENDS, assert_same_outputs, base, body_lines

PYPTO, DSA_RP, PTOAS = passes.MemoryPlanner.PYPTO, passes.MemoryPlanner.DSA_RP, passes.MemoryPlanner.PTOAS

HEAD = '''
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIC)
    def k(self, a: pl.Tensor[[16, 16], pl.FP16], b: pl.Tensor[[16, 16], pl.FP16], flag: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]], out2: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        am: pl.Tile[[16, 16], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Mat)
        bm: pl.Tile[[16, 16], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Mat)
        al: pl.Tile[[16, 16], pl.FP16, pl.Mem.Left] = pl.tile.move(am, target_memory=pl.Mem.Left)
        br: pl.Tile[[16, 16], pl.FP16, pl.Mem.Right] = pl.tile.move(bm, target_memory=pl.Mem.Right)
        c0: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(al, br)
'''
TAIL = '''
        o: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(res, [0, 0], out)
        return o
'''
SEED = "pl.tile.matmul(al, br)"
ACC = "pl.tile.matmul_acc(c0, al, br)"


def if_program(then_value: str, else_value: str, then_extra: str = "") -> str:
    return HEAD + f'''        if flag == 0:
            c1: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = {then_value}{then_extra}
            res = pl.yield_(c1)
        else:
            c2: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = {else_value}
            res = pl.yield_(c2)''' + TAIL


# the accumulator in the else branch, the seed in the then branch (a peeled first K step), and the other way round
ELSE_ACCUMULATES = if_program(SEED, ACC)
THEN_ACCUMULATES = if_program(ACC, SEED)


def planned(src: str, planner: passes.MemoryPlanner, backend: str = "Ascend910B",
            until: str = "memory_reuse") -> tuple[ir.Program, ir.Program]:
    """InitMemRef's output, and that after MaterializeSemanticAliases (+ MemoryReuse under PYPTO)."""
    with passes.PassContext(pass_test_instruments(), backend=backend, memory_planner=planner):
        before = passes.init_mem_ref()(pl.parse(src))
        after = passes.materialize_semantic_aliases()(before)
        if planner is PYPTO and until == "memory_reuse":
            after = passes.memory_reuse()(after)
    return before, after


def same_both_ways(before: ir.Program, after: ir.Program, backend: str) -> None:
    for flag in (0, 1):
        assert_same_outputs(before, after, backend, flag=np.int64(flag))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("planner", [PYPTO, DSA_RP])
def test_the_seed_is_pulled_onto_the_accumulator_buffer(planner, backend):
    before, after = planned(ELSE_ACCUMULATES, planner, backend)
    assert [base(before, v) for v in ("c0", "c1", "c2", "res")] == ["mem_acc_8", "mem_acc_9", "mem_acc_8",
                                                                    "mem_acc_9"]
    assert [base(after, v) for v in ("c0", "c1", "c2", "res")] == ["mem_acc_8"] * 4
    assert not any("tile.move(c" in line for line in body_lines(after))  # no copy was needed
    same_both_ways(before, after, backend)


@pytest.mark.parametrize("planner", [PYPTO, DSA_RP])
def test_the_accumulator_may_be_in_the_then_branch(planner):
    before, after = planned(THEN_ACCUMULATES, planner)
    assert [base(after, v) for v in ("c0", "c1", "c2", "res")] == ["mem_acc_8"] * 4
    same_both_ways(before, after, "Ascend910B")


def test_under_dsa_rp_the_coalesced_program_is_placed_and_the_seed_s_buffer_dropped():
    with passes.PassContext(pass_test_instruments(), backend="Ascend910B", memory_planner=DSA_RP):
        before = passes.init_mem_ref()(pl.parse(ELSE_ACCUMULATES))
        after = passes.allocate_memory_addr()(passes.materialize_semantic_aliases()(before))
    assert "mem_acc_9: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 1024)" not in body_lines(after)
    assert ("c1: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_acc_8, pl.const(0, pl.INT64), 1024), pl.Mem.Acc] = "
            "pl.tile.matmul(al, br)") in body_lines(after)
    same_both_ways(before, after, "Ascend910B")


def test_under_pypto_materialize_semantic_aliases_leaves_it_to_memory_reuse():
    before, after = planned(ELSE_ACCUMULATES, PYPTO, until="materialize_semantic_aliases")
    assert base(after, "c1") == "mem_acc_9"


def test_under_ptoas_nothing_is_coalesced():
    before, after = planned(ELSE_ACCUMULATES, PTOAS)
    assert base(after, "c1") == "mem_acc_9"  # PTOAS's fix-up is for loops only; the assembler places the rest


@pytest.mark.parametrize("planner", [PYPTO, DSA_RP])
def test_a_refused_retarget_is_an_internal_error(planner):
    # the then branch still reads c0 (stores it) after computing its seed, so the seed cannot take c0's buffer
    src = if_program(SEED, ACC, "\n            o2: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(c0, [0, 0], out2)")
    with pytest.raises(InternalError, match="cannot coalesce L0C accumulator across a peeled if-phi: the if yields "
                                            "the in-place accumulator 'c2' on 'mem_acc_8' from one branch, but the "
                                            "other branch's seed 'c1' cannot be computed in that buffer"):
        planned(src, planner)


def test_two_seeds_are_not_coalesced_under_dsa_rp_and_the_acc_move_is_the_internal_error():
    # no branch accumulates in place: the yield fix-up would need an Acc -> Acc move (PyPTO's behaviour)
    with pytest.raises(InternalError, match="cannot reconcile divergent L0C accumulator buffers"):
        planned(if_program(SEED, SEED), DSA_RP)


def test_two_seeds_share_one_buffer_under_pypto_by_the_phi_rule():
    before, after = planned(if_program(SEED, SEED), PYPTO)
    assert base(after, "c1") == base(after, "c2") == base(after, "res")
    same_both_ways(before, after, "Ascend910B")


PEELED_LOOP = HEAD + '''        for i, (acc,) in pl.range(3, init_values=(c0,)):
            if i == 0:
                c1: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(al, br)
                ph = pl.yield_(c1)
            else:
                c2: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(acc, al, br)
                ph = pl.yield_(c2)
            res = pl.yield_(ph)
''' + TAIL


@pytest.mark.parametrize("planner", [PYPTO, DSA_RP])
def test_a_peeled_k_loop_ends_on_the_carried_buffer(planner):
    before, after = planned(PEELED_LOOP, planner)
    assert len({base(after, v) for v in ("c0", "c1", "c2", "ph", "res")}) == 1
    same_both_ways(before, after, "Ascend910B")


LOOP_ACC_ELSEWHERE = HEAD + '''        for i, (acc,) in pl.range(2, init_values=(c0,)):
            c1: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(al, br)
            o2: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(acc, [0, 0], out2)
            res = pl.yield_(c1)
''' + TAIL


@pytest.mark.parametrize("planner", [PTOAS, DSA_RP])
def test_a_loop_yield_on_another_acc_buffer_is_the_internal_error_of_the_fix_up(planner):
    # c1 cannot take the carried buffer (acc is read after it), and there is no Acc -> Acc move
    with pytest.raises(InternalError, match="MemoryReuse cannot reconcile divergent L0C accumulator buffers with "
                                            "tile.move: 'c1' is yielded on"):
        planned(LOOP_ACC_ELSEWHERE, planner)

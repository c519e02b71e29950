"""ExpandMixedKernel's output on the reference machine (docs/passes/expand_mixed_kernel.md, GM fences): a cube store followed by a vector
load of the same GM gets a fence and the Group computes what the kernel did; deliberately broken variants of
an expanded program are caught by the machine with a message naming the FIFO, buffer or tensor."""

from __future__ import annotations

import pytest

import pypto.language as pl
from pypto import ir
from pypto_core.interp import MachineError, make_inputs, run_program

from .emk_helpers import BACKENDS, calls_of, emk
from .helpers import function
from .test_expand_mixed_kernel import UNSPLIT

FENCED = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(a: pl.Tensor[[16, 16], pl.FP32], w: pl.Tensor[[16, 16], pl.FP32], tmp: pl.Out[pl.Tensor[[16, 16], pl.FP32]], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32]]:
        a_m: pl.Tile[[16, 16], pl.FP32, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Mat)
        w_m: pl.Tile[[16, 16], pl.FP32, pl.Mem.Mat] = pl.tile.load(w, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Mat)
        a_l: pl.Tile[[16, 16], pl.FP32, pl.Mem.Left] = pl.tile.move(a_m, target_memory=pl.Mem.Left)
        w_r: pl.Tile[[16, 16], pl.FP32, pl.Mem.Right] = pl.tile.move(w_m, target_memory=pl.Mem.Right)
        c: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(a_l, w_r)
        t2: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(c, [0, 0], tmp)
        x: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(t2, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)
        o: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(pl.tile.exp(x), [0, 0], out)
        return t2, o
'''


@pytest.mark.parametrize("backend_name", BACKENDS)
def test_a_cube_store_then_a_vector_load_of_the_same_gm_gets_a_fence(backend_name: str):
    after = emk(FENCED, backend_name)  # and computes the same: the load waits for the store
    aic, aiv = function(after, "k_aic"), function(after, "k_aiv")
    (push,) = calls_of(aic, "tile.tpush_to_aiv")
    assert push.args[0].name_hint == "c" and push.kwargs == {"split": 0}  # the stored tile is the token
    names = [s.var.name_hint if isinstance(s, ir.AssignStmt) else s.expr.op.name
             for s in ir.flatten_to_stmts(aiv.body) if isinstance(s, (ir.AssignStmt, ir.EvalStmt))]
    assert names.index("tmp_gm_sync") + 2 == names.index("x")  # pop, tfree, then the load
    (pop,) = calls_of(aiv, "tile.tpop_from_aic")
    assert str(pop.type) == str(ir.TileType([16, 16], ir.DataType.FP32, memory_space=ir.MemorySpace.Vec))
    aic_names = [s.var.name_hint if isinstance(s, ir.AssignStmt) else s.expr.op.name
                 for s in ir.flatten_to_stmts(aic.body) if isinstance(s, (ir.AssignStmt, ir.EvalStmt))]
    assert aic_names[aic_names.index("t2") + 1:] == ["tile.tpush_to_aiv"]


def test_a_gm_origin_stored_twice_gets_no_fence():
    two = FENCED.replace("        x: pl.Tile", "        t3: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(c, [0, 0], t2)\n"
                                              "        x: pl.Tile")
    after = emk(two, run=False)  # (the machine would report the race: the rule covers a single store only)
    assert not calls_of(function(after, "k_aic"), "tile.tpush_to_aiv")


def _expanded_text(src: str) -> str:
    return ir.python_print(emk(src, "Ascend950"), format=False)


def _run_broken(text: str, entry: str = "k"):
    program = pl.parse(text)
    inputs = make_inputs(program.get_function(entry), seed=0)
    return run_program(program, inputs, entry)


@pytest.fixture(scope="module")
def fenced_text() -> str:
    return _expanded_text(FENCED)


@pytest.fixture(scope="module")
def unsplit_text() -> str:
    return _expanded_text(UNSPLIT)


def test_a_removed_fence_is_found_as_a_gm_race(fenced_text: str):
    broken = fenced_text
    for line in ("        pl.tile.tpush_to_aiv(c, split=0)\n",
                 "        tmp_gm_sync: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.tpop_from_aic(split=0)\n",
                 "        pl.system.tfree_to_aic(tmp_gm_sync)\n"):
        assert line in broken, line
        broken = broken.replace(line, "")
    _run_broken(fenced_text)  # the fenced program runs
    with pytest.raises(MachineError, match=r"GM race on tensor 'tmp'.*vector load.*cube store.*fence"):
        _run_broken(broken)


def test_a_slot_size_one_element_short_is_caught(unsplit_text: str):
    broken = unsplit_text.replace("slot_size=4096", "slot_size=4092").replace("size=8192", "size=8184")
    assert broken.count("slot_size=4092") == 2
    with pytest.raises(MachineError, match=r"FIFO .*4096 bytes.*slot_size.*4092|slot_size.*4092.*4096"):
        _run_broken(broken, "main")


def test_a_missing_tfree_is_caught(unsplit_text: str):
    line = "        pl.system.tfree_to_aic(c_v)\n"
    assert line in unsplit_text
    with pytest.raises(MachineError, match=r"FIFO C2V.*never released by system.tfree_to_aic"):
        _run_broken(unsplit_text.replace(line, ""), "main")


def test_mismatched_setups_are_caught(unsplit_text: str):
    aiv_at = unsplit_text.index("def k_aiv")
    head, tail = unsplit_text[:aiv_at], unsplit_text[aiv_at:]
    broken = head + tail.replace("slot_size=4096, slot_num=2", "slot_size=4096, slot_num=1", 1)
    with pytest.raises(MachineError, match=r"pipe 0"):
        _run_broken(broken, "main")


def test_a_buffer_smaller_than_its_slots_is_caught(unsplit_text: str):
    broken = unsplit_text.replace("name='k_c2v_slot_buffer', size=8192", "name='k_c2v_slot_buffer', size=4096")
    with pytest.raises(MachineError, match=r"k_c2v_slot_buffer.*4096.*8192|k_c2v_slot_buffer.*8192.*4096"):
        _run_broken(broken, "main")

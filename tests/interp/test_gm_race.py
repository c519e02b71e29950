"""A missing GM fence is found: GM accesses of the tasks of one core group with no happens-before
between them (pypto_core/interp/gm_race.py). A cube store followed by a vector load of the same GM
needs a token through a FIFO between them; lanes of a split AIV function may write disjoint halves
(and the same data) freely, but one lane reading what the other stored needs a barrier, and two lanes
writing different values to the same elements are a race (docs/architecture.md, the reference machine)."""

import numpy as np
import pytest

import pypto.language as pl
from pypto_core.interp import MachineError, make_inputs, run_program
from pypto_core.interp.gm_race import READ, WRITE, GmRaceTracker

# The AIC computes a @ b into `out`; the AIV lanes then read `out` back (their halves) into `y`.
FENCE = """
import pypto.language as pl

@pl.program
class Fence:
    @pl.function(type=pl.FunctionType.AIC)
    def k_aic(a: pl.Tensor[[16, 16], pl.FP32], b: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
        buf: pl.Scalar[pl.INT32] = pl.system.import_peer_buffer(name="k_c2v_slot_buffer", peer_func="k_aiv")
        pl.system.aic_initialize_pipe(buf, pl.const(0, pl.INT32), dir_mask=1, slot_size=64, slot_num=2)
        am = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        bm = pl.load(b, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        acc = pl.matmul(pl.move(am, target_memory=pl.Mem.Left), pl.move(bm, target_memory=pl.Mem.Right))
        out = pl.store(acc, [0, 0], out)
        {PUSH}

    @pl.function(type=pl.FunctionType.AIV)
    def k_aiv(a: pl.Tensor[[16, 16], pl.FP32], b: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        pl.func_attr({{"split_aiv": True}})
        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        buf: pl.Scalar[pl.INT32] = pl.system.reserve_buffer(name="k_c2v_slot_buffer", size=128, base=-1)
        pl.system.aiv_initialize_pipe(buf, pl.const(0, pl.INT32), dir_mask=1, slot_size=64, slot_num=2)
        {POP}
        c: pl.Tile[[8, 16], pl.FP32, pl.Mem.Vec] = pl.load(out, [sb * 8, 0], [8, 16])
        y = pl.store(pl.exp(c), [sb * 8, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Group)
    def k(a: pl.Tensor[[16, 16], pl.FP32], b: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        {CALLS}
        return r
"""

TOKEN_PUSH = """token = pl.load(a, [0, 0], [1, 16], target_memory=pl.Mem.Mat)
        pl.tile.tpush_to_aiv(token, split=0)"""
TOKEN_POP = """token: pl.Tile[[1, 16], pl.FP32, pl.Mem.Vec] = pl.tile.tpop_from_aic(split=0)
        pl.system.tfree_to_aic(token)"""
AIC_FIRST = """self.k_aic(a, b, out, y)
        r = self.k_aiv(a, b, out, y)"""
AIV_FIRST = """r = self.k_aiv(a, b, out, y)
        self.k_aic(a, b, out, y)"""


def _fence(fenced: bool, calls: str = AIC_FIRST):
    text = FENCE.format(PUSH=TOKEN_PUSH if fenced else "pass", POP=TOKEN_POP if fenced else "pass", CALLS=calls)
    program = pl.parse(text)
    return program, make_inputs(program.get_function("k"), seed=12)


def test_a_cube_store_fenced_by_a_token_before_the_vector_load_is_no_race():
    program, inputs = _fence(fenced=True)
    y = run_program(program, inputs, entry="k")["y"]
    want = np.exp(inputs["a"].astype(np.float64) @ inputs["b"].astype(np.float64))
    np.testing.assert_allclose(y, want, rtol=1e-4)


def test_a_removed_fence_is_a_gm_race_naming_the_tensor_both_ops_and_the_fix():
    # The scheduler runs the AIC first, so the store really happened before the load; without the
    # token there is still no happens-before between them.
    program, inputs = _fence(fenced=False)
    with pytest.raises(MachineError) as err:
        run_program(program, inputs, entry="k")
    text = str(err.value)
    assert "GM race on tensor 'out': the vector load at <string>:" in text
    assert ("(task k_aiv[lane 0]) reads elements the cube store at <string>:13:" in text)
    assert ("(task k_aic) writes, with no happens-before between them; a cube store followed by a vector load of "
            "the same GM needs a fence (a token tpush_to_aiv / tpop_from_aic between them)") in text


def test_the_race_is_found_whichever_side_the_scheduler_runs_first():
    program, inputs = _fence(fenced=False, calls=AIV_FIRST)  # the AIV lanes run (and load) first
    with pytest.raises(MachineError, match="GM race on tensor 'out': the cube store .* writes elements the vector "
                                           "load .* reads"):
        run_program(program, inputs, entry="k")
    program, inputs = _fence(fenced=True, calls=AIV_FIRST)  # the load waits for the token: fine
    run_program(program, inputs, entry="k")


# Lanes of one split AIV function (a group of its own: no AIC). Each lane stores its half of `a` into
# `out`; {BACK} may read something back.
LANES = """
import pypto.language as pl

@pl.program
class Lanes:
    @pl.function(type=pl.FunctionType.AIV)
    def k_aiv(a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
        pl.func_attr({{"split_aiv": True}})
        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        t: pl.Tile[[8, 16], pl.FP32, pl.Mem.Vec] = pl.load(a, [sb * 8, 0], [8, 16])
        out = pl.store(t, [{ROW}, 0], out)
        {BACK}

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
        self.k_aiv(a, out, y)
"""

READ_LANE0 = """if sb == 1:
            c: pl.Tile[[8, 16], pl.FP32, pl.Mem.Vec] = pl.load(out, [0, 0], [8, 16])
            y = pl.store(c, [0, 0], y)"""
BARRIER_THEN_READ = """g = pl.tile.aic_gather(t, split=1)
        """ + READ_LANE0


def _lanes(back: str = "pass", row: str = "sb * 8"):
    program = pl.parse(LANES.format(BACK=back, ROW=row))
    return program, make_inputs(program.get_function("main"), seed=13)


def test_lanes_writing_disjoint_halves_are_no_race():
    program, inputs = _lanes()
    np.testing.assert_array_equal(run_program(program, inputs, entry="main")["out"], inputs["a"])


def test_lanes_writing_the_same_values_to_the_same_elements_are_no_race():
    # Dual-dispatch lanes write identical data (before the lane-1 replay of docs/passes/split_vector_kernel.md):
    # not reported.
    program = pl.parse(LANES.format(BACK="pass", ROW="0").replace("pl.load(a, [sb * 8, 0]", "pl.load(a, [0, 0]"))
    run_program(program, make_inputs(program.get_function("main"), seed=13), entry="main")


def test_lanes_writing_different_values_to_the_same_elements_are_a_race():
    # Each lane stores its own half of `a` at row 0: GM keeps one of them.
    program, inputs = _lanes(row="0")
    with pytest.raises(MachineError, match=r"GM race on tensor 'out': the vector store .* \(task k_aiv\[lane 1\]\) "
                                           r"and the vector store .* \(task k_aiv\[lane 0\]\) write different values"):
        run_program(program, inputs, entry="main")


def test_lane_1_reading_what_lane_0_stored_without_a_barrier_is_a_race():
    program, inputs = _lanes(back=READ_LANE0)
    with pytest.raises(MachineError) as err:
        run_program(program, inputs, entry="main")
    text = str(err.value)
    assert "GM race on tensor 'out': the vector load at" in text
    assert "(task k_aiv[lane 1]) reads elements the vector store at" in text
    assert "(task k_aiv[lane 0]) writes, with no happens-before between them" in text


def test_a_lane_barrier_orders_the_lanes():
    program, inputs = _lanes(back=BARRIER_THEN_READ)
    y = run_program(program, inputs, entry="main")["y"]
    np.testing.assert_array_equal(y[:8], inputs["a"][:8])


# A one-lane AIV function forks a split region after the token: the region's lanes start after what
# the AIV did (the token pop), and the AIV continues after them (its store follows their loads).
REGION = """
import pypto.language as pl

@pl.program
class Region:
    @pl.function(type=pl.FunctionType.AIC)
    def k_aic(a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
        buf: pl.Scalar[pl.INT32] = pl.system.import_peer_buffer(name="k_c2v_slot_buffer", peer_func="k_aiv")
        pl.system.aic_initialize_pipe(buf, pl.const(0, pl.INT32), dir_mask=1, slot_size=64, slot_num=2)
        am = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        acc = pl.matmul(pl.move(am, target_memory=pl.Mem.Left), pl.move(am, target_memory=pl.Mem.Right))
        out = pl.store(acc, [0, 0], out)
        token = pl.load(a, [0, 0], [1, 16], target_memory=pl.Mem.Mat)
        pl.tile.tpush_to_aiv(token, split=0)

    @pl.function(type=pl.FunctionType.AIV)
    def k_aiv(a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
        buf: pl.Scalar[pl.INT32] = pl.system.reserve_buffer(name="k_c2v_slot_buffer", size=128, base=-1)
        pl.system.aiv_initialize_pipe(buf, pl.const(0, pl.INT32), dir_mask=1, slot_size=64, slot_num=2)
        token: pl.Tile[[1, 16], pl.FP32, pl.Mem.Vec] = pl.tile.tpop_from_aic(split=0)
        pl.system.tfree_to_aic(token)
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            c = pl.load(out, [aiv_id * 8, 0], [8, 16])
            y = pl.store(c, [aiv_id * 8, 0], y)
        z = pl.load(a, [0, 0], [16, 16])
        out = pl.store(z, [0, 0], out)

    @pl.function(type=pl.FunctionType.Group)
    def k(a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
        self.k_aic(a, out, y)
        self.k_aiv(a, out, y)
"""


def test_a_split_region_inside_a_group_task_inherits_and_returns_its_happens_before():
    program = pl.parse(REGION)
    inputs = make_inputs(program.get_function("k"), seed=14)
    y = run_program(program, inputs, entry="k")["y"]
    a = inputs["a"].astype(np.float64)
    np.testing.assert_allclose(y, a @ a, rtol=1e-4, atol=1e-4)


# The AIV reads `out` and then frees the slot of the first push; the AIC's second push into that slot
# waits for the free, so its later store to `out` follows the read -- but only if the second push
# reuses the freed slot (one slot). With two slots nothing orders them.
REUSE = """
import pypto.language as pl

@pl.program
class Reuse:
    @pl.function(type=pl.FunctionType.AIC)
    def k_aic(a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
        buf: pl.Scalar[pl.INT32] = pl.system.import_peer_buffer(name="k_c2v_slot_buffer", peer_func="k_aiv")
        pl.system.aic_initialize_pipe(buf, pl.const(0, pl.INT32), dir_mask=1, slot_size=64, slot_num={SLOTS})
        token = pl.load(a, [0, 0], [1, 16], target_memory=pl.Mem.Mat)
        pl.tile.tpush_to_aiv(token, split=0)
        pl.tile.tpush_to_aiv(token, split=0)
        t = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        out = pl.store(t, [0, 0], out)

    @pl.function(type=pl.FunctionType.AIV)
    def k_aiv(a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
        buf: pl.Scalar[pl.INT32] = pl.system.reserve_buffer(name="k_c2v_slot_buffer", size=128, base=-1)
        pl.system.aiv_initialize_pipe(buf, pl.const(0, pl.INT32), dir_mask=1, slot_size=64, slot_num={SLOTS})
        first: pl.Tile[[1, 16], pl.FP32, pl.Mem.Vec] = pl.tile.tpop_from_aic(split=0)
        c = pl.load(out, [0, 0], [16, 16])
        y = pl.store(c, [0, 0], y)
        pl.system.tfree_to_aic(first)
        second: pl.Tile[[1, 16], pl.FP32, pl.Mem.Vec] = pl.tile.tpop_from_aic(split=0)
        pl.system.tfree_to_aic(second)

    @pl.function(type=pl.FunctionType.Group)
    def k(a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
        self.k_aic(a, out, y)
        self.k_aiv(a, out, y)
"""


def test_a_push_into_a_freed_slot_follows_the_consumers_free():
    program = pl.parse(REUSE.format(SLOTS=1))
    inputs = make_inputs(program.get_function("k"), seed=15)
    run_program(program, inputs, entry="k")
    program = pl.parse(REUSE.format(SLOTS=2))  # the AIC now runs to its end before the AIV starts
    with pytest.raises(MachineError, match="GM race on tensor 'out': the vector load .* reads elements the cube "
                                           "store .* writes"):
        run_program(program, inputs, entry="k")


# -- the tracker on numpy views: tensor identity is the base buffer, overlap is by elements ----------
class _Ctx:
    def __init__(self, task: str, core: str) -> None:
        self.task, self.core = task, core


def _call(op: str, name: str = "out"):
    from pypto_core.ir import expr as E
    from pypto_core.ir.dtypes import DataType
    from pypto_core.ir.types import TensorType

    var = E.Var(name, TensorType([E.ConstInt(16, DataType.INDEX)] * 2, DataType.FP32))
    return E.Call(E.Op(op), [var])


STORE, LOAD = _call("tile.store"), _call("tile.load")


def _race(first: np.ndarray, second: np.ndarray) -> bool:
    tracker = GmRaceTracker("g")
    tracker.record(_Ctx("k_aic", "aic"), STORE, 0, WRITE, first)
    try:
        tracker.record(_Ctx("k_aiv[lane 0]", "aiv"), LOAD, 0, READ, second)
    except MachineError:
        return True
    return False


def test_views_of_one_buffer_race_only_where_their_elements_overlap():
    base = np.zeros((16, 16), np.float32)
    assert _race(base[0:8], base[4:6, 2:3])
    assert not _race(base[0:8], base[8:16])
    assert not _race(base[:, 0:8], base[:, 8:16])  # byte ranges interleave, elements do not
    assert _race(base[2:3, 5:6], base.T[5:6, 2:3])  # a transposed view: the exact memory test
    assert not _race(base[2:3, 5:6], base.T[2:3, 5:6])
    assert not _race(base, np.zeros((16, 16), np.float32))  # another buffer


def test_a_release_and_acquire_orders_the_accesses():
    base = np.zeros((16, 16), np.float32)
    aic, lane0, lane1 = _Ctx("k_aic", "aic"), _Ctx("k_aiv[lane 0]", "aiv"), _Ctx("k_aiv[lane 1]", "aiv")
    tracker = GmRaceTracker("g")
    tracker.record(aic, STORE, 0, WRITE, base[0:8])
    tracker.acquire(lane0.task, tracker.release(aic.task))  # a token: push, then pop
    tracker.record(lane0, LOAD, 0, READ, base[0:8])
    tracker.record(aic, STORE, 0, WRITE, base[8:16])  # after the token: unordered with lane 0
    tracker.record(lane1, STORE, 0, WRITE, base[8:16])  # two writes of the same values: no race
    with pytest.raises(MachineError, match="GM race on tensor 'out': the vector load .* reads elements the "
                                           "(cube|vector) store"):
        tracker.record(lane0, LOAD, 0, READ, base[8:16])

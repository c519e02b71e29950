"""The machine judges the AIV lanes instead of picking a schedule (docs/architecture.md, the reference machine).

(a) two lanes writing different values to one GM element, or one lane reading what the other wrote with
    no lane barrier / transfer between them, is an error: inside a core group, on the lanes of a forked
    split_aiv InCore function and on the lanes of a forked pl.split_aiv region;
(c) a no-split (split=0) V->C tile both lanes pushed with different data is reported at the AIC's pop;
(d) a forked split_aiv function's cube ops run once, on lane 0, behind a lane barrier;
(e) a dual_aiv_dispatch AIV function computes on two lanes what it computes on one.

Each check has a deliberately wrong program it catches and a correct twin that runs.
"""

from __future__ import annotations

import numpy as np
import pytest

import pypto.language as pl
from pypto_core.interp import DeadlockError, MachineError, compare_outputs, make_inputs, run_program

from .test_core_group_v2c import DUAL, LANE0, REPLAY

T16 = "pl.Tensor[[16, 16], pl.FP32]"


def _run(text: str, entry: str, seed: int = 0) -> tuple[dict, dict]:
    program = pl.parse(text)
    inputs = make_inputs(program.get_function(entry), seed=seed)
    return inputs, run_program(program, inputs, entry)


def _f64(x: np.ndarray) -> np.ndarray:
    return x.astype(np.float64)


# -- (a) on the lanes of a forked split_aiv InCore function ---------------------------------------------
# The kernel's store outside the region runs on both lanes (the full tile, the same data: fine); the
# region then reads `tmp` back, each lane its own rows. {BARRIER} may order the lanes in between.
FORKED = f"""
import pypto.language as pl

@pl.program
class Forked:
    @pl.function(type=pl.FunctionType.InCore)
    def k(a: {T16}, tmp: pl.Out[{T16}], y: pl.Out[{T16}]) -> {T16}:
        pl.func_attr({{{{"split_aiv": True}}}})
        t = pl.load(a, [0, 0], [16, 16])
        tmp = pl.store(pl.exp(t), [0, 0], tmp)
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            {{BARRIER}}
            h = pl.load(tmp, [aiv_id * 8, 0], [8, 16])
            y = pl.store(pl.muls(h, 2.0), [aiv_id * 8, 0], y)
        return y
"""
GATHER_BARRIER = """g = pl.aic_gather(pl.load(a, [aiv_id * 8, 0], [8, 16]))"""


def test_a_forked_lane_reading_rows_the_other_lane_stored_is_a_race():
    # Each lane's region reads rows of `tmp` the other lane stores too, with nothing ordering the lanes:
    # were the lanes scheduled rather than judged, what a load saw would depend on the schedule. The scheduler
    # runs lane 0 to its end first, so the pair found is lane 1's store against lane 0's earlier load --
    # whatever the order, it is reported.
    with pytest.raises(MachineError) as err:
        _run(FORKED.format(BARRIER="pass"), "k", seed=1)
    text = str(err.value)
    assert ("GM race on tensor 'tmp': the vector store at <string>:10:15 (task k[lane 1]) writes elements the "
            "vector load at <string>:13:17 (task k[lane 0]) reads, with no happens-before between them") in text
    assert "order them through a lane barrier (aic_gather)" in text


def test_a_lane_barrier_between_the_store_and_the_region_orders_the_lanes():
    inputs, out = _run(FORKED.format(BARRIER=GATHER_BARRIER), "k", seed=1)
    np.testing.assert_allclose(out["y"], 2 * np.exp(_f64(inputs["a"])), rtol=1e-6)


# Forked split_aiv function, each lane storing a half of `a` at {ROW}: disjoint halves, or both at row 0.
HALVES = f"""
import pypto.language as pl

@pl.program
class Halves:
    @pl.function(type=pl.FunctionType.InCore)
    def k(a: {T16}, out: pl.Out[{T16}]) -> {T16}:
        pl.func_attr({{{{"split_aiv": True}}}})
        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        t: pl.Tile[[8, 16], pl.FP32, pl.Mem.Vec] = pl.load(a, [{{SRC}}, 0], [8, 16])
        out = pl.store(t, [{{ROW}}, 0], out)
        return out
"""


def test_forked_lanes_writing_different_values_to_one_element_are_a_race():
    with pytest.raises(MachineError) as err:
        _run(HALVES.format(SRC="sb * 8", ROW="0"), "k", seed=2)
    text = str(err.value)
    assert ("GM race on tensor 'out': the vector store at <string>:11:15 (task k[lane 1]) and the vector store at "
            "<string>:11:15 (task k[lane 0]) write different values to the same elements (element [0, 0]:") in text
    assert "which one GM keeps depends on the schedule; let each lane write its own elements" in text


def test_forked_lanes_writing_disjoint_halves_or_identical_values_are_fine():
    inputs, out = _run(HALVES.format(SRC="sb * 8", ROW="sb * 8"), "k", seed=2)
    np.testing.assert_array_equal(out["out"], inputs["a"])
    inputs, out = _run(HALVES.format(SRC="0", ROW="0"), "k", seed=2)  # the same data twice, as dual-dispatch lanes store it
    np.testing.assert_array_equal(out["out"][:8], inputs["a"][:8])


# -- (a) on the lanes of a pl.split_aiv region forked from an unsplit kernel -----------------------------
REGION = f"""
import pypto.language as pl

@pl.program
class Region:
    @pl.function(type=pl.FunctionType.InCore)
    def k(a: {T16}, tmp: pl.Out[{T16}], y: pl.Out[{T16}]) -> {T16}:
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            t = pl.load(a, [aiv_id * 8, 0], [8, 16])
            tmp = pl.store(pl.exp(t), [aiv_id * 8, 0], tmp)
            {{BARRIER}}
            h = pl.load(tmp, [{{BACK}}, 0], [8, 16])
            y = pl.store(h, [aiv_id * 8, 0], y)
        return y
"""


def test_a_region_lane_reading_the_other_lanes_half_is_a_race():
    with pytest.raises(MachineError, match=r"GM race on tensor 'tmp': the vector (load|store) at <string>:\d+:\d+ "
                                           r"\(task k: split_aiv region\[lane [01]\]\)"):
        _run(REGION.format(BARRIER="pass", BACK="(1 - aiv_id) * 8"), "k", seed=3)


def test_region_lanes_reading_their_own_half_or_after_a_barrier_are_fine():
    inputs, out = _run(REGION.format(BARRIER="pass", BACK="aiv_id * 8"), "k", seed=3)
    np.testing.assert_allclose(out["y"], np.exp(_f64(inputs["a"])), rtol=1e-6)
    inputs, out = _run(REGION.format(BARRIER="g = pl.aic_gather(t)", BACK="(1 - aiv_id) * 8"), "k", seed=3)
    want = np.exp(_f64(inputs["a"]))
    np.testing.assert_allclose(out["y"], np.concatenate([want[8:], want[:8]]), rtol=1e-6)


def test_region_lanes_accumulating_into_one_element_commute():
    # Two atomic (Add) stores of the same elements are no race: the sums commute.
    text = f"""
import pypto.language as pl

@pl.program
class Atomic:
    @pl.function(type=pl.FunctionType.InCore)
    def k(a: {T16}, out: pl.InOut[{T16}]) -> {T16}:
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            t = pl.load(a, [aiv_id * 8, 0], [8, 16])
            out = pl.store(t, [0, 0], out, atomic={{ATOMIC}})
        return out
"""
    program = pl.parse(text.format(ATOMIC="pl.AtomicType.Add"))
    inputs = make_inputs(program.get_function("k"), seed=4)
    start = inputs["out"].copy()
    out = run_program(program, inputs, "k")["out"]
    np.testing.assert_allclose(out[:8], start[:8] + inputs["a"][:8] + inputs["a"][8:], rtol=1e-5, atol=1e-6)
    with pytest.raises(MachineError, match="write different values to the same elements"):
        _run(text.format(ATOMIC="pl.AtomicType.None_"), "k", seed=4)


def test_writes_through_other_views_are_compared_element_by_element():
    # A transposed view is no box of its buffer: the two writes are matched element by element.
    from pypto_core.interp.gm_race import WRITE, GmRaceTracker
    from pypto_core.ir import expr as E
    from pypto_core.ir.dtypes import DataType
    from pypto_core.ir.types import TensorType

    class Lane:
        def __init__(self, lane: int) -> None:
            self.task, self.core = f"k[lane {lane}]", "lane"

    out = E.Var("out", TensorType([E.ConstInt(4, DataType.INDEX)] * 2, DataType.FP32))
    store = E.Call(E.Op("tile.store"), [out])
    base = np.zeros((4, 4), np.float32)
    base[...] = np.arange(16).reshape(4, 4)
    tracker = GmRaceTracker("the lanes of 'k'")
    tracker.record(Lane(0), store, 0, WRITE, base.T[0:2, 1:3])
    tracker.record(Lane(1), store, 0, WRITE, base[1:3, 0:2])  # the same elements, the same values: fine
    base[2, 1] = -1.0
    with pytest.raises(MachineError, match=r"write different values to the same elements \(element \[2, 1\]: "
                                           r"-1.0 vs 9.0\)"):
        tracker.record(Lane(1), store, 0, WRITE, base[2:3, 0:2])


# -- (a) inside a core group: the lanes of a split AIV function --------------------------------------------
GROUP_LANES = f"""
import pypto.language as pl

@pl.program
class GroupLanes:
    @pl.function(type=pl.FunctionType.AIV)
    def k_aiv(a: {T16}, out: pl.Out[{T16}]):
        pl.func_attr({{{{"split_aiv": True}}}})
        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        t: pl.Tile[[8, 16], pl.FP32, pl.Mem.Vec] = pl.load(a, [{{SRC}}, 0], [8, 16])
        out = pl.store(pl.exp(t), [0, 0], out)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(a: {T16}, out: pl.Out[{T16}]):
        self.k_aiv(a, out)
"""


def test_group_lanes_storing_different_values_at_one_place_are_a_race():
    with pytest.raises(MachineError, match=r"GM race on tensor 'out': the vector store at <string>:11:15 \(task "
                                           r"k_aiv\[lane 1\]\) and the vector store at <string>:11:15 \(task "
                                           r"k_aiv\[lane 0\]\) write different values"):
        _run(GROUP_LANES.format(SRC="sb * 8"), "main", seed=5)
    inputs, out = _run(GROUP_LANES.format(SRC="0"), "main", seed=5)  # the same values: fine
    np.testing.assert_allclose(out["out"][:8], np.exp(_f64(inputs["a"][:8])), rtol=1e-6)


# -- (c) a no-split V->C push with different data on the two lanes ---------------------------------------
V2C_BODY = """a_tile = pl.load(a, [0, 0], [16, 16])
        b_tile = pl.load(b, [0, 0], [16, 16])
        summed = pl.add(a_tile, pl.muls(b_tile, {SCALE}))
        pl.tile.tpush_to_aic(summed, split=0)"""
DUAL_ATTR = 'pl.func_attr({"dual_aiv_dispatch": True})'


def test_a_no_split_push_of_different_data_on_the_two_lanes_is_reported_at_the_pop():
    # Lane 1 pushes a + 2 * b, lane 0 pushes a + b: the cube would get one of them.
    body = V2C_BODY.format(SCALE="pl.cast(subblock_idx + 1, pl.FP32)")
    with pytest.raises(MachineError) as err:
        _run(DUAL.format(ATTRS=DUAL_ATTR, BODY=body), "main", seed=6)
    text = str(err.value)
    assert ("tile.tpop_from_aiv at <string>:12:53 (task main_aic) pops a no-split (split=0) V2C tile that two lanes "
            "pushed with different data at element [0, 0]") in text
    assert ("the tile.tpush_to_aic at <string>:28:9 (task main_aiv[lane 0]) and the tile.tpush_to_aic at "
            "<string>:28:9 (task main_aiv[lane 1])") in text
    assert "let the other lanes push an empty tile (valid_shape [0, 0], SplitVectorKernel's lane-1 replay)" in text


def test_a_no_split_push_of_the_same_data_or_of_an_empty_replay_is_fine():
    inputs, out = _run(DUAL.format(ATTRS=DUAL_ATTR, BODY=V2C_BODY.format(SCALE="1.0")), "main", seed=6)
    want = _f64(inputs["a"] + inputs["b"]) @ _f64(inputs["b"])
    np.testing.assert_allclose(out["out"], want, rtol=1e-5, atol=1e-5)
    inputs, out = _run(DUAL.format(ATTRS=DUAL_ATTR, BODY=REPLAY), "main", seed=6)  # the lane-1 replay (docs/passes/split_vector_kernel.md)
    np.testing.assert_allclose(out["out"], want, rtol=1e-5, atol=1e-5)


# -- (d) the cube ops of a forked split_aiv function run once ----------------------------------------------
# The matmul's result is stored (atomically: a second run would double it) and read back by the region's
# lanes: the barrier after the cube store orders their loads (no race).
CUBE = f"""
import pypto.language as pl

@pl.program
class Cube:
    @pl.function(type=pl.FunctionType.InCore)
    def k(a: {T16}, b: {T16}, tmp: pl.InOut[{T16}], y: pl.Out[{T16}]) -> {T16}:
        {{ATTRS}}
        am = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        bm = pl.load(b, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        acc = pl.matmul(pl.move(am, target_memory=pl.Mem.Left), pl.move(bm, target_memory=pl.Mem.Right))
        {{STORE}}
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            h = pl.load(tmp, [aiv_id * 8, 0], [8, 16])
            y = pl.store(pl.exp(h), [aiv_id * 8, 0], y)
        return y
"""
SPLIT_ATTR = 'pl.func_attr({"split_aiv": True})'
CUBE_STORE = "tmp = pl.store(acc, [0, 0], tmp, atomic=pl.AtomicType.Add)"


def test_a_forked_functions_cube_store_runs_once_and_orders_the_lanes_loads():
    inputs, split = _run(CUBE.format(ATTRS=SPLIT_ATTR, STORE=CUBE_STORE), "k", seed=7)
    _, unsplit = _run(CUBE.format(ATTRS="pass", STORE=CUBE_STORE), "k", seed=7)  # on the host, once
    want_tmp = _f64(inputs["tmp"]) + _f64(inputs["a"]) @ _f64(inputs["b"])
    np.testing.assert_allclose(split["tmp"], want_tmp, rtol=1e-5, atol=1e-5)  # once, not twice
    checks = compare_outputs(unsplit, split)
    assert all(c.comparison.ok for c in checks), [c.comparison.describe() for c in checks]


def test_a_cube_op_only_one_lane_reaches_is_a_deadlock_naming_it():
    guarded = "sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()\n        if sb == 0:\n            " + CUBE_STORE
    with pytest.raises(DeadlockError) as err:
        _run(CUBE.format(ATTRS=SPLIT_ATTR, STORE=guarded), "k", seed=7)
    text = str(err.value)
    assert "deadlock in the lanes of 'k'" in text
    assert ("tile.store at <string>:14:19, a cube op the lanes of a split_aiv function run once on lane 0 (the one "
            "cube core: every lane must reach it) (call #1 on lane 0) waits at the lane barrier "
            "for lane 1") in text


def test_a_vector_store_in_place_of_the_cube_store_runs_on_both_lanes_and_races():
    # The same kernel with the matmul's result moved to the vector unit and stored there: that store runs
    # on both lanes (the same data: fine), and the region's lane 1 then reads rows lane 0 stored.
    vector = "tmp = pl.store(pl.move(acc, target_memory=pl.Mem.Vec), [0, 0], tmp)"
    with pytest.raises(MachineError, match=r"GM race on tensor 'tmp': the vector store at <string>:12:15 \(task "
                                           r"k\[lane 1\]\) writes elements the vector load at <string>:14:17 \(task "
                                           r"k\[lane 0\]\) reads"):
        _run(CUBE.format(ATTRS=SPLIT_ATTR, STORE=vector), "k", seed=7)


# -- (e) dual_aiv_dispatch: two lanes compute what one lane computes ---------------------------------------
# The AIV function of DUAL (a Group of an AIC and an AIV function), also storing to GM.
STORE_TOO = LANE0 + """
        e = pl.exp(a_tile)
        pl.store(e, [0, 0], y)"""
LANE_DEPENDENT_STORE = LANE0 + """
        e = pl.muls(pl.exp(a_tile), pl.cast(subblock_idx + 1, pl.FP32))
        pl.store(e, [0, 0], y)"""


def _dual_program(body: str, dual: bool, y: bool) -> str:
    text = DUAL.format(ATTRS=DUAL_ATTR if dual else "pass", BODY=body)
    if y:  # a second output `y` of the AIV function
        text = text.replace("out: pl.Out[pl.Tensor[[16, 16], pl.FP32]])",
                            "out: pl.Out[pl.Tensor[[16, 16], pl.FP32]], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]])")
        text = text.replace("(a, b, out)", "(a, b, out, y)")
    return text


@pytest.mark.parametrize("body,y", [(LANE0, False), (STORE_TOO, True), (REPLAY, False)],
                         ids=["push", "push_and_store", "seed002_replay"])
def test_dual_aiv_dispatch_on_two_lanes_computes_what_one_lane_does(body: str, y: bool):
    one = pl.parse(_dual_program(body, dual=False, y=y))
    two = pl.parse(_dual_program(body, dual=True, y=y))
    inputs = make_inputs(one.get_function("main"), seed=8)
    checks = compare_outputs(run_program(one, inputs, "main"), run_program(two, inputs, "main"))
    assert checks and all(c.comparison.ok for c in checks), [c.comparison.describe() for c in checks]


def test_a_dual_aiv_dispatch_body_that_depends_on_the_lane_is_caught():
    one = pl.parse(_dual_program(LANE_DEPENDENT_STORE, dual=False, y=True))
    inputs = make_inputs(one.get_function("main"), seed=8)
    run_program(one, inputs, "main")  # one lane: fine
    two = pl.parse(_dual_program(LANE_DEPENDENT_STORE, dual=True, y=True))
    with pytest.raises(MachineError, match=r"GM race on tensor 'y': the vector store .* \(task main_aiv\[lane 1\]\) "
                                           r"and the vector store .* \(task main_aiv\[lane 0\]\) write different "
                                           r"values"):
        run_program(two, inputs, "main")

"""FIFO mechanics of a core group: slot counts from the pipe setup ops, tfree releasing slots,
blocking pops / pushes resumed by the other side, deadlocks reported with their FIFO, and a popped
tile never freed reported when the group's run ends."""

import numpy as np
import pytest

import pypto.language as pl
from pypto_core.interp import DeadlockError, Machine, MachineError, make_inputs, run_program

STREAM = """
import pypto.language as pl

@pl.program
class Stream:
    @pl.function(type=pl.FunctionType.AIC)
    def k_aic(a: pl.Tensor[[64, 32], pl.FP32], out: pl.Out[pl.Tensor[[64, 32], pl.FP32]]):
        buf = pl.system.import_peer_buffer(name="c2v", peer_func="k_aiv")
        pl.system.aic_initialize_pipe(buf, pl.const(0, pl.INT32), dir_mask=1, slot_size=4096, slot_num={SLOTS})
        for i in pl.range({PUSHES}):
            t = pl.load(a, [i * 16, 0], [16, 32], target_memory=pl.Mem.Mat)
            pl.tile.tpush_to_aiv(t, split=0)

    @pl.function(type=pl.FunctionType.AIV)
    def k_aiv(a: pl.Tensor[[64, 32], pl.FP32], out: pl.Out[pl.Tensor[[64, 32], pl.FP32]]) -> pl.Tensor[[64, 32], pl.FP32]:
        buf = pl.system.reserve_buffer(name="c2v", size={BUF}, base=-1)
        pl.system.aiv_initialize_pipe(buf, pl.const(0, pl.INT32), dir_mask=1, slot_size=4096, slot_num={SLOTS})
        for i in pl.range(4):
            t: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.tpop_from_aic(split=0)
            out = pl.store(pl.muls(t, 2.0), [i * 16, 0], out)
            {FREE}
        return out

    @pl.function(type=pl.FunctionType.Group)
    def k(a: pl.Tensor[[64, 32], pl.FP32], out: pl.Out[pl.Tensor[[64, 32], pl.FP32]]) -> pl.Tensor[[64, 32], pl.FP32]:
        self.k_aic(a, out)
        r = self.k_aiv(a, out)
        return r
"""


def _stream(slots: int = 1, pushes: int = 4, free: bool = True):
    # The ring the AIV reserves holds slot_num x slot_size bytes (pipes.py).
    text = STREAM.format(SLOTS=slots, BUF=slots * 4096, PUSHES=pushes,
                         FREE="pl.system.tfree_to_aic(t)" if free else "pass")
    program = pl.parse(text)
    return program, make_inputs(program.get_function("k"), seed=1)


@pytest.mark.parametrize("slots", [1, 2, 4])
def test_one_slot_pipe_streams_through_blocking_pushes(slots):
    program, inputs = _stream(slots=slots)
    out = run_program(program, inputs, entry="k")["out"]
    np.testing.assert_array_equal(out, inputs["a"] * 2)


def test_a_pop_with_nothing_pushed_is_a_deadlock_naming_its_fifo():
    program, inputs = _stream(pushes=3)
    with pytest.raises(DeadlockError) as err:
        run_program(program, inputs, entry="k")
    text = str(err.value)
    assert "deadlock in core group 'k'" in text
    assert ("k_aiv[lane 0]: tile.tpop_from_aic waits for data in FIFO C2V pipe 0 (AIC -> AIV lane 0) "
            "(0 of 1 slot(s) used)") in text


def test_a_slot_never_released_blocks_the_producer_and_is_reported():
    program, inputs = _stream(slots=1, free=False)
    with pytest.raises(DeadlockError) as err:
        run_program(program, inputs, entry="k")
    text = str(err.value)
    assert ("k_aic: tile.tpush_to_aiv waits for a free slot of FIFO C2V pipe 0 (AIC -> AIV lane 0) "
            "(1 of 1 slot(s) used, 1 popped but not yet released by tfree)") in text
    assert "k_aiv[lane 0]: tile.tpop_from_aic waits for data in FIFO C2V pipe 0" in text


def test_enough_slots_do_not_hide_a_missing_tfree():
    # Nothing blocks (4 slots, 4 pushes), but the run ends with every popped slot still held.
    program, inputs = _stream(slots=4, free=False)
    with pytest.raises(MachineError) as err:
        run_program(program, inputs, entry="k")
    assert not isinstance(err.value, DeadlockError)
    assert ("core group 'k' finished with 4 popped tile(s) of FIFO C2V pipe 0 (AIC -> AIV lane 0) never released "
            "by system.tfree_to_aic") in str(err.value)


def test_cross_core_op_outside_a_core_group_is_a_clear_error():
    text = """
import pypto.language as pl

@pl.program
class Alone:
    @pl.function(type=pl.FunctionType.InCore)
    def k(a: pl.Tensor[[16, 16], pl.FP32]):
        t = pl.load(a, [0, 0], [16, 16])
        pl.tile.tpush_to_aic(t, split=0)
"""
    program = pl.parse(text)
    with pytest.raises(MachineError, match="tile.tpush_to_aic runs outside a core group"):
        run_program(program, make_inputs(program.get_function("k")))


_INDEPENDENT_KERNELS = """import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIV)
    def k1(self, a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t = pl.load(a, [0, 0], [16, 16])
        out = pl.store(pl.tile.exp(t), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.AIC)
    def k2(self, b: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
        bm = pl.load(b, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        acc = pl.matmul(pl.move(bm, target_memory=pl.Mem.Left), pl.move(bm, target_memory=pl.Mem.Right))
        s = pl.store(acc, [0, 0], out)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]], z: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        y2 = self.k1(x, y)
        self.k2(y, z)
        return z
"""


def test_consecutive_kernels_that_talk_to_no_other_core_run_one_after_the_other():
    # After ExpandMixedKernel an AIV-only kernel writing a buffer and an AIC-only kernel reading it, called one
    # after the other, are not the two halves of one kernel: batched into one core group, they would make the
    # machine report a GM race between them. A kernel with no cross-core op runs alone, in the orchestration's
    # order.
    program = pl.parse(_INDEPENDENT_KERNELS)
    x = np.random.default_rng(0).standard_normal((16, 16)).astype(np.float32)
    out = Machine(program).run(inputs={"x": x, "y": np.zeros_like(x), "z": np.zeros_like(x)})
    np.testing.assert_allclose(out, np.exp(x) @ np.exp(x), rtol=1e-4)

"""What the hardware enforces on a core group's pipe setup (docs/passes/expand_mixed_kernel.md,
pipe setup: a slot holds the full tile the consumer pops, the ring takes slot_size x
slot_num bytes of the consumer's memory): a buffer holds slot_num x slot_size, the AIC and AIV (and
both AIV lanes) set a pipe up alike, setup precedes the first push / pop, slot_size covers every tile
moved, and every popped tile is freed. Each broken variant of a correct program is an error naming
the FIFO or buffer."""

import numpy as np
import pytest

import pypto.language as pl
from pypto_core.interp import DeadlockError, MachineError, make_inputs, run_program

SETUP = ("pl.system.{side}_initialize_pipe(buf, pl.const(0, pl.INT32), dir_mask={mask}, slot_size={size}, "
         "slot_num={num})")

# A.5's shape: the AIV consumes C2V and reserves the ring, the AIC imports it. The AIC pushes the full
# [16, 32] FP32 tile (2048 bytes), each lane pops its [8, 32] half (split code 1).
C2V = """
import pypto.language as pl

@pl.program
class Pipe:
    @pl.function(type=pl.FunctionType.AIC)
    def k_aic(a: pl.Tensor[[16, 32], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]):
        buf: pl.Scalar[pl.INT32] = pl.system.import_peer_buffer(name="k_c2v_slot_buffer", peer_func="k_aiv")
        {AIC_SETUP}
        for i in pl.range({PUSHES}):
            t = pl.load(a, [0, 0], [16, 32], target_memory=pl.Mem.Mat)
            pl.tile.tpush_to_aiv(t, split=1)

    @pl.function(type=pl.FunctionType.AIV)
    def k_aiv(a: pl.Tensor[[16, 32], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        pl.func_attr({{"split_aiv": True}})
        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        buf: pl.Scalar[pl.INT32] = pl.system.reserve_buffer(name="k_c2v_slot_buffer", size={BUF}, base=-1)
        {AIV_SETUP}
        for i in pl.range({PUSHES}):
            half: pl.Tile[[8, 32], pl.FP32, pl.Mem.Vec] = pl.tile.tpop_from_aic(split=1)
            {AIV_LATE_SETUP}
            out = pl.store(half, [sb * 8, 0], out)
            {FREE}
        return out

    @pl.function(type=pl.FunctionType.Group)
    def k(a: pl.Tensor[[16, 32], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        self.k_aic(a, out)
        r = self.k_aiv(a, out)
        return r
"""

TILE_BYTES = 16 * 32 * 4


def _c2v(size: int = TILE_BYTES, num: int = 2, buf: int | None = None, pushes: int = 1, free: bool = True,
         aic_setup: str | None = None, aiv_setup: str | None = None, aiv_late_setup: str = "pass"):
    aic = SETUP.format(side="aic", mask=1, size=size, num=num) if aic_setup is None else aic_setup
    aiv = SETUP.format(side="aiv", mask=1, size=size, num=num) if aiv_setup is None else aiv_setup
    text = C2V.format(AIC_SETUP=aic, AIV_SETUP=aiv, AIV_LATE_SETUP=aiv_late_setup, PUSHES=pushes,
                      BUF=num * size if buf is None else buf, FREE="pl.system.tfree_to_aic(half)" if free else "pass")
    program = pl.parse(text)
    return program, make_inputs(program.get_function("k"), seed=7)


def _error(program, inputs) -> str:
    with pytest.raises(MachineError) as err:
        run_program(program, inputs, entry="k")
    assert not isinstance(err.value, DeadlockError)  # the check, not a blocked peer
    return str(err.value)


def test_the_correct_pipe_setup_runs():
    program, inputs = _c2v()
    np.testing.assert_array_equal(run_program(program, inputs, entry="k")["out"], inputs["a"])


# -- slot_size covers every pushed tile -------------------------------------------------------------
def test_a_slot_size_one_element_short_is_caught_at_the_push():
    program, inputs = _c2v(size=TILE_BYTES - 4)
    text = _error(program, inputs)
    assert ("tile.tpush_to_aiv on FIFO C2V pipe 0 (AIC -> the AIV lanes): the pushed tile is 2048 bytes but "
            "pipe 0's slot_size is 2044") in text
    assert "raise slot_size to at least 2048" in text


V2C = """
import pypto.language as pl

@pl.program
class Back:
    @pl.function(type=pl.FunctionType.AIC)
    def k_aic(a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[32, 8], pl.FP32], out: pl.Out[pl.Tensor[[16, 8], pl.FP32]]) -> pl.Tensor[[16, 8], pl.FP32]:
        buf: pl.Scalar[pl.INT32] = pl.system.reserve_buffer(name="k_v2c_slot_buffer", size=8192, base=-1)
        pl.system.aic_initialize_pipe(pl.const(0, pl.INT32), buf, dir_mask=2, slot_size={SIZE}, slot_num=2)
        bm = pl.load(b, [0, 0], [32, 8], target_memory=pl.Mem.Mat)
        br = pl.move(bm, target_memory=pl.Mem.Right)
        x: pl.Tile[[16, 32], pl.FP32, pl.Mem.Mat] = pl.tile.tpop_from_aiv(split=1)
        xl = pl.move(x, target_memory=pl.Mem.Left)
        acc = pl.matmul(xl, br)
        {FREE}
        r = pl.store(acc, [0, 0], out)
        return r

    @pl.function(type=pl.FunctionType.AIV)
    def k_aiv(a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[32, 8], pl.FP32], out: pl.Out[pl.Tensor[[16, 8], pl.FP32]]):
        pl.func_attr({{"split_aiv": True}})
        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        buf: pl.Scalar[pl.INT32] = pl.system.import_peer_buffer(name="k_v2c_slot_buffer", peer_func="k_aic")
        {AIV_SETUP}
        t: pl.Tile[[8, 32], pl.FP32] = pl.load(a, [sb * 8, 0], [8, 32])
        pl.tile.tpush_to_aic(t, split=1)

    @pl.function(type=pl.FunctionType.Group)
    def k(a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[32, 8], pl.FP32], out: pl.Out[pl.Tensor[[16, 8], pl.FP32]]) -> pl.Tensor[[16, 8], pl.FP32]:
        r = self.k_aic(a, b, out)
        self.k_aiv(a, b, out)
        return r
"""


def _v2c(size: int = TILE_BYTES, free: bool = True, aiv_setup: str | None = None):
    setup = ("pl.system.aiv_initialize_pipe(pl.const(0, pl.INT32), buf, dir_mask=2, slot_size={SIZE}, "
             "slot_num=2)") if aiv_setup is None else aiv_setup
    text = V2C.format(SIZE=size, AIV_SETUP=setup.format(SIZE=size),
                      FREE="pl.system.tfree_to_aiv(x)" if free else "pass")
    program = pl.parse(text)
    return program, make_inputs(program.get_function("k"), seed=8)


def test_the_correct_v2c_setup_runs():
    program, inputs = _v2c()
    out = run_program(program, inputs, entry="k")["out"]
    want = inputs["a"].astype(np.float64) @ inputs["b"].astype(np.float64)
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)


def test_a_v2c_slot_must_hold_the_full_tile_the_aic_pops():
    # Each lane pushes 1024 bytes, which a 1024-byte slot takes; the AIC pops the assembled 2048.
    program, inputs = _v2c(size=TILE_BYTES // 2)
    text = _error(program, inputs)
    assert ("tile.tpop_from_aiv on FIFO V2C pipe 0 (the AIV lanes -> AIC): the popped tile is 2048 bytes but "
            "pipe 0's slot_size is 1024") in text


# -- a buffer holds slot_num x slot_size -------------------------------------------------------------
def test_a_buffer_smaller_than_slot_num_times_slot_size_is_caught_at_the_consumers_setup():
    program, inputs = _c2v(buf=2 * TILE_BYTES - 1)
    text = _error(program, inputs)
    assert ("system.aiv_initialize_pipe in k_aiv[lane 0]: buffer 'k_c2v_slot_buffer' of C2V pipe 0 has "
            "size=4095 bytes but slot_num x slot_size = 2 x 2048 = 4096") in text


def test_an_initialize_pipe_argument_that_is_no_buffer_is_caught():
    program, inputs = _c2v(aiv_setup=SETUP.format(side="aiv", mask=1, size=TILE_BYTES, num=2).replace("buf", "12", 1))
    assert "its C2V buffer argument 12 is not the address of a buffer of core group 'k'" in _error(program, inputs)


def test_an_import_of_a_buffer_the_peer_does_not_reserve_is_caught():
    program, inputs = _v2c()
    broken = pl.parse(V2C.format(SIZE=TILE_BYTES, FREE="pl.system.tfree_to_aiv(x)",
                                 AIV_SETUP="pass").replace('name="k_v2c_slot_buffer", peer_func', 'name="k_v2c", peer_func'))
    text = _error(broken, inputs)
    assert ("system.import_peer_buffer(name='k_v2c', peer_func='k_aic') in k_aiv[lane 0]: 'k_aic' reserves no "
            "buffer named 'k_v2c'") in text


def test_auto_buffers_get_one_address_on_both_sides_whichever_runs_first():
    # The AIC imports before the AIV reserves (it runs first); the import must find the same address.
    from pypto_core.interp.pipes import auto_address

    assert auto_address("k_c2v_slot_buffer") == auto_address("k_c2v_slot_buffer") != auto_address("k_v2c_slot_buffer")
    program, inputs = _c2v()
    run_program(program, inputs, entry="k")


# -- AIC and AIV setups agree ------------------------------------------------------------------------
def test_mismatched_aic_and_aiv_setups_are_caught():
    aiv = SETUP.format(side="aiv", mask=1, size=TILE_BYTES, num=4)
    program, inputs = _c2v(buf=4 * TILE_BYTES, aiv_setup=aiv)
    text = _error(program, inputs)
    assert ("pipe 0 of core group 'k' is set up differently by the AIC (k_aic): dir_mask=1, slot_size=2048, "
            "slot_num=2 and AIV lane 0 (k_aiv[lane 0]): dir_mask=1, slot_size=2048, slot_num=4") in text


def test_a_default_slot_num_agrees_with_the_backend_depth():
    aic = SETUP.format(side="aic", mask=1, size=TILE_BYTES, num=2).replace(", slot_num=2", "")
    program, inputs = _c2v(aic_setup=aic)  # None -> the default depth 2, as the AIV says
    np.testing.assert_array_equal(run_program(program, inputs, entry="k")["out"], inputs["a"])


def test_the_two_aiv_lanes_must_set_a_pipe_up_alike():
    lane_dependent = ("if sb == 0:\n"
                      "            " + SETUP.format(side="aiv", mask=1, size=TILE_BYTES, num=2) + "\n"
                      "        else:\n"
                      "            " + SETUP.format(side="aiv", mask=1, size=2 * TILE_BYTES, num=2))
    program, inputs = _c2v(buf=4 * TILE_BYTES, aiv_setup=lane_dependent)
    text = _error(program, inputs)
    assert ("pipe 0 of core group 'k' is set up differently by the AIC (k_aic): dir_mask=1, slot_size=2048, "
            "slot_num=2 and AIV lane 1 (k_aiv[lane 1]): dir_mask=1, slot_size=4096, slot_num=2") in text


def test_a_setup_op_of_the_other_core_is_caught():
    program, inputs = _c2v(aiv_setup=SETUP.format(side="aic", mask=1, size=TILE_BYTES, num=2))
    assert ("system.aic_initialize_pipe runs on the AIV (k_aiv[lane 0]): that core sets its pipes up with "
            "system.aiv_initialize_pipe") in _error(program, inputs)


def test_a_cross_core_op_on_the_wrong_core_is_caught():
    program, inputs = _c2v(aiv_late_setup="pl.tile.tpush_to_aiv(half, split=0)")
    assert ("tile.tpush_to_aiv runs on the AIV (k_aiv[lane 0]), but it is an op of the AIC"
            in _error(program, inputs))


# -- setup precedes the first push / pop --------------------------------------------------------------
def test_a_push_before_the_aic_setup_is_caught():
    program, inputs = _c2v(aic_setup="pass")
    text = _error(program, inputs)
    assert ("tile.tpush_to_aiv on FIFO C2V pipe 0 (AIC -> the AIV lanes) before the AIC (k_aic) set up pipe 0 "
            "for C2V: run system.aic_initialize_pipe(..., dir_mask=1 or 3") in text


def test_a_pop_before_the_aiv_setup_is_caught():
    program, inputs = _c2v(aiv_setup="pass", aiv_late_setup=SETUP.format(side="aiv", mask=1, size=TILE_BYTES, num=2))
    text = _error(program, inputs)
    assert ("tile.tpop_from_aic on FIFO C2V pipe 0 (AIC -> AIV lane 0) before AIV lane 0 (k_aiv[lane 0]) set up "
            "pipe 0 for C2V: run system.aiv_initialize_pipe(") in text


def test_a_setup_of_the_other_direction_does_not_cover_a_push():
    program, inputs = _c2v(aic_setup=SETUP.format(side="aic", mask=2, size=TILE_BYTES, num=2))
    text = _error(program, inputs)
    assert "before the AIC (k_aic) set up pipe 0 for C2V (its setup has dir_mask=2, which does not include 1)" in text


def test_a_push_before_the_aiv_setup_of_a_v2c_pipe_is_caught():
    program, inputs = _v2c(aiv_setup="pass")
    text = _error(program, inputs)
    assert ("tile.tpush_to_aic on FIFO V2C pipe 0 (AIV lane 0 -> AIC) before AIV lane 0 (k_aiv[lane 0]) set up "
            "pipe 0 for V2C: run system.aiv_initialize_pipe(..., dir_mask=2 or 3") in text


# -- every popped tile is freed ------------------------------------------------------------------------
def test_two_pops_of_a_two_slot_pipe_never_freed_are_reported_with_the_fifo_and_tfree():
    # Two slots hold both pushes, so nothing blocks: only the end-of-run check sees the missing tfree.
    program, inputs = _c2v(pushes=2, free=False)
    text = _error(program, inputs)
    assert ("core group 'k' finished with 2 popped tile(s) of FIFO C2V pipe 0 (AIC -> AIV lane 0) never released "
            "by system.tfree_to_aic") in text


def test_a_missing_tfree_to_aiv_is_reported():
    program, inputs = _v2c(free=False)
    text = _error(program, inputs)
    assert ("core group 'k' finished with 1 popped tile(s) of FIFO V2C pipe 0 (AIV lane 0 -> AIC) never released "
            "by system.tfree_to_aiv") in text


def test_a_missing_tfree_with_too_few_slots_is_still_a_deadlock_naming_the_fifo():
    program, inputs = _c2v(num=1, pushes=2, free=False)
    with pytest.raises(DeadlockError, match=r"waits for a free slot of FIFO C2V pipe 0 \(AIC -> AIV lane 0\) "
                                            r"\(1 of 1 slot\(s\) used, 1 popped but not yet released by tfree\)"):
        run_program(program, inputs, entry="k")

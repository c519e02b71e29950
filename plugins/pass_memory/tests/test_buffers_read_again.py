"""Buffers handed on only when nothing reads them again (docs/passes/init_mem_ref.md, loops and ifs; fuzz findings):

* an if result takes a yielded value's buffer only when no variable on it from before the if is read after the if
  or by an enclosing loop's next iteration; MemoryReuse's yield fix-up then moves into the result's own buffer
  rather than overwriting the then-branch's value;
* a loop carry takes its init's buffer only when the init is not read again by an enclosing loop's next iteration;
* a program that relies on two tiles it placed itself sharing bytes is refused, located, not re-planned into
  another result.
Each program compiles through the default pipeline under check-run (every pass run before and after, by address
after InitMemRef) on both backends and computes numpy's result."""

from __future__ import annotations

import numpy as np
import pytest

import pypto.language as pl
from pypto import passes
from pypto_core.interp import run_program
from pypto_core.testing import checked_pipeline

BACKENDS = ["Ascend910B", "Ascend950"]
PLANNERS = list(passes.MemoryPlanner)


def compiled_with(src: str, backend: str, planner: passes.MemoryPlanner):  # type: ignore[no-untyped-def]
    """The default pipeline under check-run, built and run under `planner`."""
    with passes.PassContext([], backend=backend, memory_planner=planner):
        return checked_pipeline.__wrapped__(backend).run(pl.parse(src))  # type: ignore[attr-defined]

# The then-branch yields a tile loaded before the loop, read again every even iteration (fuzz finding, seed 2).
OUTER_TILE_YIELDED = '''import pypto.language as pl

@pl.program
class P:
    @pl.function
    def main(self, x7: pl.Tensor[[32, 16], pl.FP32], x11: pl.Tensor[[8, 16], pl.FP32],
             out8: pl.Out[pl.Tensor[[32, 16], pl.FP32]]) -> pl.Tensor[[32, 16], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            for i9 in pl.range(4):
                blk10 = pl.slice(x7, [8, 16], [i9 * 8, 0])
                if i9 % 2 == 0:
                    r12 = pl.yield_(x11)
                else:
                    r12 = pl.yield_(blk10)
                out8 = pl.assemble(out8, r12, [i9 * 8, 0])
        return out8
'''


@pytest.mark.parametrize("planner", PLANNERS, ids=lambda p: p.name)
@pytest.mark.parametrize("backend", BACKENDS)
def test_an_if_result_does_not_take_the_buffer_of_a_tile_read_again(backend: str, planner) -> None:  # type: ignore[no-untyped-def]
    compiled = compiled_with(OUTER_TILE_YIELDED, backend, planner)
    rng = np.random.default_rng(1)
    x7 = rng.standard_normal((32, 16)).astype(np.float32)
    x11 = rng.standard_normal((8, 16)).astype(np.float32)
    inputs = {"x7": x7, "x11": x11, "out8": np.zeros((32, 16), np.float32)}
    got = np.asarray(run_program(compiled, {k: v.copy() for k, v in inputs.items()}, "main")["out8"], np.float32)
    want = np.concatenate([x11, x7[8:16], x11, x7[24:32]])
    np.testing.assert_array_equal(got, want)


# A carry's init loaded before an outer loop: the inner loop writes the carry's buffer, and the next outer
# iteration starts the inner loop from the init again.
INIT_READ_BY_THE_NEXT_OUTER_ITERATION = '''import pypto.language as pl

@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[16, 32], pl.FP32], y: pl.Tensor[[16, 32], pl.FP32],
             out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            first = pl.slice(x, [16, 32], [0, 0])
            yt = pl.slice(y, [16, 32], [0, 0])
            for o in pl.range(2):
                for i, (s,) in pl.range(3, init_values=(first,)):
                    s2 = pl.add(s, yt)
                    total = pl.yield_(s2)
                out = pl.assemble(out, total, [o * 16, 0])
        return out
'''


@pytest.mark.parametrize("planner", PLANNERS, ids=lambda p: p.name)
@pytest.mark.parametrize("backend", BACKENDS)
def test_a_carry_does_not_take_the_buffer_of_an_init_an_outer_loop_reads_again(backend: str, planner) -> None:  # type: ignore[no-untyped-def]
    compiled = compiled_with(INIT_READ_BY_THE_NEXT_OUTER_ITERATION, backend, planner)
    rng = np.random.default_rng(2)
    x, y = rng.standard_normal((16, 32)).astype(np.float32), rng.standard_normal((16, 32)).astype(np.float32)
    got = run_program(compiled, {"x": x.copy(), "y": y.copy(), "out": np.zeros((32, 32), np.float32)}, "main")
    want = np.concatenate([x + 3 * y, x + 3 * y])
    np.testing.assert_allclose(np.asarray(got["out"]), want, rtol=1e-5, atol=1e-5)


PLACED = '''import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[8, 16], pl.FP32], out: pl.Out[pl.Tensor[[8, 16], pl.FP32]]) -> pl.Tensor[[8, 16], pl.FP32]:
        buf: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        t: pl.Tile[[8, 16], pl.FP32, pl.MemRef(buf, 0, 512), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [8, 16], [8, 16], target_memory=pl.Mem.Vec)
        u: pl.Tile[[8, 16], pl.FP32, pl.MemRef(buf, U_OFFSET, 512), pl.Mem.Vec] = pl.tile.full([8, 16], dtype=pl.FP32, value=2.0)
        v: pl.Tile[[8, 16], pl.FP32, pl.Mem.Vec] = pl.tile.add(READ)
        o: pl.Tensor[[8, 16], pl.FP32] = pl.tile.store(v, [0, 0], out)
        return o
'''


def test_a_program_relying_on_two_placed_tiles_sharing_bytes_is_refused() -> None:
    """`u` overwrites `t`'s bytes and `t` is read afterwards: by address the sum reads 2.0; re-planned it would
    read `a`. InitMemRef refuses it, naming both tiles."""
    program = pl.parse(PLACED.replace("U_OFFSET", "0").replace("READ", "t, t"))
    with pytest.raises(ValueError, match=r"tile 'u__ssa_v0' is placed on bytes of 'buf' that tile 't__ssa_v0' "
                                         r"holds, and 't__ssa_v0' is read after"):
        checked_pipeline("Ascend910B").run(program)


@pytest.mark.parametrize(("offset", "read"), [("512", "t, u"), ("0", "u, u")], ids=["disjoint-bytes", "t-dead-before-u"])
def test_placed_tiles_that_do_not_rely_on_sharing_are_re_planned(offset: str, read: str) -> None:
    """Disjoint bytes, or a `t` nobody reads once `u` is written: re-planning keeps what the program computes."""
    program = pl.parse(PLACED.replace("U_OFFSET", offset).replace("READ", read))
    compiled = checked_pipeline("Ascend910B").run(program)  # check-run: the same outputs after every pass
    assert compiled.get_function("k") is not None


IN_PLACE_OPERAND_READ_AGAIN = '''import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 128], pl.FP32], b: pl.Tensor[[16, 128], pl.FP32],
          out: pl.Out[pl.Tensor[[16, 128], pl.FP32]]) -> pl.Tensor[[16, 128], pl.FP32]:
        w = pl.tile.load(a, [0, 0], [16, 128], [16, 128], target_memory=pl.Mem.Vec)
        v = pl.tile.load(b, [0, 0], [16, 128], [16, 128], target_memory=pl.Mem.Vec)
        ui = pl.tile.full([2, 8], dtype=pl.INT32, value=3)
        x = pl.tile.scatter_update(w, -2, ui, v)
        y = pl.tile.add(x, w)
        out = pl.tile.store(y, [0, 0], out)
        return out
'''


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_in_place_op_whose_operand_is_read_again_writes_into_a_copy(backend: str) -> None:
    """scatter_update writes its result into its input's buffer; `w` is read again by the add, so InitMemRef
    copies it first (`w_mv`) and the update writes the copy (check-run: row 3 would read the update)."""
    compiled = compiled_with(IN_PLACE_OPERAND_READ_AGAIN, backend, passes.MemoryPlanner.PYPTO)
    from pypto import ir

    text = ir.python_print(compiled)
    assert "pl.tile.scatter_update(w__ssa_v0_mv" in text or "scatter_update(w_mv" in text, text


ACC_READ_AGAIN = '''import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.FP32], b: pl.Tensor[[64, 32], pl.FP32],
          out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        al = pl.move(pl.load(a, [0, 0], [16, 32], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
        br = pl.move(pl.load(b, [0, 0], [32, 32], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        acc = pl.matmul(al, br)
        once = pl.matmul_acc(acc, al, br)
        twice = pl.matmul_acc(acc, al, br)
        out = pl.store(twice, [0, 0], out)
        return out
'''


def test_an_accumulator_read_again_after_an_in_place_accumulate_is_a_located_error() -> None:
    """Two accumulations from one Acc tile (a fuzz finding: the second read the first's sum): an Acc tile cannot
    be copied, so InitMemRef refuses it, located at the first accumulation."""
    with pytest.raises(ValueError, match=r"(?s)InitMemRef: in function 'k', tile.matmul_acc accumulates into 'acc' "
                                         r"in place \(its L0C buffer\), but 'acc' is read again afterwards.*"
                                         r"once = pl.matmul_acc"):
        compiled_with(ACC_READ_AGAIN, "Ascend910B", passes.MemoryPlanner.PYPTO)

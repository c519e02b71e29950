"""OptimizeOrchTensors on the reference's worked examples (docs/passes/optimize_orch_tensors.md, examples):
PyPTO's exact output, and the same results on the machine."""

from __future__ import annotations

import pytest

from pypto import passes
from pypto_plugins.pass_dispatch.tests.orch_helpers import assert_optimized, assert_unchanged, parse

# Example 1: Patterns 1 (loop), 2 and 4.
O1 = '''@pl.program
class O1:
    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)
    def main_incore_0(buf__iter_v1: pl.Tensor[[64, 64], pl.FP32], ret0__out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        buf__tile: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(buf__iter_v1, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)
        buf__tile_1: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(buf__tile, 1.0)
        ret0__store: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(buf__tile_1, [0, 0], ret0__out)
        return ret0__store
    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)
    def main_incore_1(part__ssa_v0: pl.Tensor[[64, 64], pl.FP32], buf__rv_v2: pl.Tensor[[64, 64], pl.FP32], ret0__out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        part__tile: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(part__ssa_v0, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)
        buf__tile: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(buf__rv_v2, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)
        q__tile: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.mul(part__tile, buf__tile)
        ret0__store: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(q__tile, [0, 0], ret0__out)
        return ret0__store
    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def main(self, buf__ssa_v0: pl.Tensor[[64, 64], pl.FP32], big__ssa_v0: pl.Tensor[[128, 64], pl.FP32], dst__ssa_v0: pl.Tensor[[256, 64], pl.FP32]) -> pl.Tensor[[256, 64], pl.FP32]:
        for i__idx_v0, (buf__iter_v1,) in pl.range(4, init_values=(buf__ssa_v0,)):
            ret0__out: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.create([64, 64], dtype=pl.FP32, layout=pl.TensorLayout.ND)
            buf__ssa_v3: pl.Tensor[[64, 64], pl.FP32] = self.main_incore_0(buf__iter_v1, ret0__out)
            buf__rv_v2: pl.Tensor[[64, 64], pl.FP32] = pl.yield_(buf__ssa_v3)
        part__ssa_v0: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.slice(big__ssa_v0, [64, 64], [64, 0])
        ret0__out_1: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.create([64, 64], dtype=pl.FP32, layout=pl.TensorLayout.ND)
        q__ssa_v0: pl.Tensor[[64, 64], pl.FP32] = self.main_incore_1(part__ssa_v0, buf__rv_v2, ret0__out_1)
        dst__ssa_v1: pl.Tensor[[256, 64], pl.FP32] = pl.tensor.assemble(dst__ssa_v0, q__ssa_v0, [64, 0])
        return dst__ssa_v1
'''

O1_EXPECTED = '''@pl.program
class O1:
    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)
    def main_incore_0(buf__iter_v1: pl.InOut[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        buf__tile: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(buf__iter_v1, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)
        buf__tile_1: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(buf__tile, 1.0)
        ret0__store: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(buf__tile_1, [0, 0], buf__iter_v1)
        return ret0__store
    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)
    def main_incore_1(part__ssa_v0: pl.Tensor[[64, 64], pl.FP32, pl.TensorView(stride=[64, 1], layout=pl.TensorLayout.ND)], buf__rv_v2: pl.Tensor[[64, 64], pl.FP32], ret0__out: pl.Out[pl.Tensor[[64, 64], pl.FP32, pl.TensorView(stride=[64, 1], layout=pl.TensorLayout.ND)]]) -> pl.Tensor[[64, 64], pl.FP32]:
        part__tile: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(part__ssa_v0, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)
        buf__tile: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(buf__rv_v2, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)
        q__tile: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.mul(part__tile, buf__tile)
        ret0__store: pl.Tensor[[64, 64], pl.FP32, pl.TensorView(stride=[64, 1], layout=pl.TensorLayout.ND)] = pl.tile.store(q__tile, [0, 0], ret0__out)
        return ret0__store
    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def main(self, buf__ssa_v0: pl.Tensor[[64, 64], pl.FP32], big__ssa_v0: pl.Tensor[[128, 64], pl.FP32], dst__ssa_v0: pl.Tensor[[256, 64], pl.FP32]) -> pl.Tensor[[256, 64], pl.FP32]:
        for i__idx_v0, (buf__iter_v1,) in pl.range(4, init_values=(buf__ssa_v0,)):
            buf__ssa_v3: pl.Tensor[[64, 64], pl.FP32] = self.main_incore_0(buf__iter_v1)
            buf__rv_v2: pl.Tensor[[64, 64], pl.FP32] = pl.yield_(buf__ssa_v3)
        part__ssa_v0: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.slice(big__ssa_v0, [64, 64], [64, 0])
        ret0__out: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.create([64, 64], dtype=pl.FP32, layout=pl.TensorLayout.ND)
        q__ssa_v0: pl.Tensor[[64, 64], pl.FP32] = self.main_incore_1(part__ssa_v0, buf__rv_v2, ret0__out)
        dst__ssa_v1: pl.Tensor[[256, 64], pl.FP32] = pl.tensor.assemble(dst__ssa_v0, q__ssa_v0, [64, 0])
        return dst__ssa_v1
'''

# Example 2: standalone Pattern 1 (accum) and Pattern 3 (asm) on hand-written InCore functions.
O2 = '''@pl.program
class O2:
    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)
    def accum(x__ssa_v0: pl.Tensor[[16, 64], pl.FP32], out__ssa_v0: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t__ssa_v0: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x__ssa_v0, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        for i__idx_v0, (t__iter_v1,) in pl.range(3, init_values=(t__ssa_v0,)):
            t__ssa_v3: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(t__iter_v1, 1.0)
            t__rv_v2: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.yield_(t__ssa_v3)
        r__ssa_v0: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(t__rv_v2, [0, 0], out__ssa_v0)
        return r__ssa_v0
    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)
    def asm(x__ssa_v0: pl.Tensor[[64, 64], pl.FP32], out__ssa_v0: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        acc__ssa_v0: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.create([64, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        for i__idx_v0, (acc__iter_v1,) in pl.range(4, init_values=(acc__ssa_v0,)):
            t__ssa_v0: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x__ssa_v0, [i__idx_v0 * 16, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
            acc__ssa_v3: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.assemble(acc__iter_v1, t__ssa_v0, [i__idx_v0 * 16, 0])
            acc__rv_v2: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.yield_(acc__ssa_v3)
        r__ssa_v0: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(acc__rv_v2, [0, 0], out__ssa_v0)
        return r__ssa_v0
    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def main(self, x__ssa_v0: pl.Tensor[[64, 64], pl.FP32], y__ssa_v0: pl.Tensor[[16, 64], pl.FP32]) -> tuple[pl.Tensor[[64, 64], pl.FP32], pl.Tensor[[16, 64], pl.FP32]]:
        o1__ssa_v0: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.create([64, 64], dtype=pl.FP32, layout=pl.TensorLayout.ND)
        a__ssa_v0: pl.Tensor[[64, 64], pl.FP32] = self.asm(x__ssa_v0, o1__ssa_v0)
        o2__ssa_v0: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.create([16, 64], dtype=pl.FP32, layout=pl.TensorLayout.ND)
        b__ssa_v0: pl.Tensor[[16, 64], pl.FP32] = self.accum(y__ssa_v0, o2__ssa_v0)
        return a__ssa_v0, b__ssa_v0
'''

O2_EXPECTED = '''@pl.program
class O2:
    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)
    def accum(x__ssa_v0: pl.InOut[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t__ssa_v0: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x__ssa_v0, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        for i__idx_v0, (t__iter_v1,) in pl.range(3, init_values=(t__ssa_v0,)):
            t__ssa_v3: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(t__iter_v1, 1.0)
            t__rv_v2: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.yield_(t__ssa_v3)
        r__ssa_v0: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(t__rv_v2, [0, 0], x__ssa_v0)
        return r__ssa_v0
    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)
    def asm(x__ssa_v0: pl.Tensor[[64, 64], pl.FP32], out__ssa_v0: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        for i__idx_v0, (acc__iter_v1,) in pl.range(4, init_values=(out__ssa_v0,)):
            t__ssa_v0: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x__ssa_v0, [i__idx_v0 * 16, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
            acc__ssa_v3: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(t__ssa_v0, [i__idx_v0 * 16, 0], acc__iter_v1)
            acc__rv_v2: pl.Tensor[[64, 64], pl.FP32] = pl.yield_(acc__ssa_v3)
        return acc__rv_v2
    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def main(self, x__ssa_v0: pl.Tensor[[64, 64], pl.FP32], y__ssa_v0: pl.Tensor[[16, 64], pl.FP32]) -> tuple[pl.Tensor[[64, 64], pl.FP32], pl.Tensor[[16, 64], pl.FP32]]:
        o1__ssa_v0: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.create([64, 64], dtype=pl.FP32, layout=pl.TensorLayout.ND)
        a__ssa_v0: pl.Tensor[[64, 64], pl.FP32] = self.asm(x__ssa_v0, o1__ssa_v0)
        b__ssa_v0: pl.Tensor[[16, 64], pl.FP32] = self.accum(y__ssa_v0)
        return a__ssa_v0, b__ssa_v0
'''


def test_example_1_loop_reuse_and_parent_strides():
    assert_optimized(O1, O1_EXPECTED)


def test_example_2_standalone_reuse_and_assemble_loop():
    assert_optimized(O2, O2_EXPECTED)


def test_the_worked_examples_are_a_fixpoint():
    for expected in (O1_EXPECTED, O2_EXPECTED):
        assert_unchanged(expected)


def test_a_program_without_incore_functions_is_returned_as_it_is():
    src = '''@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
        y: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.adds(x, 1.0)
        return y
'''
    before = parse(src)
    assert passes.optimize_orch_tensors()(before) is before


def test_name_factory_and_properties():
    p = passes.optimize_orch_tensors()
    assert p.get_name() == "OptimizeOrchTensors"
    names = {"SplitIncoreOrch", "IncoreTileOps"}
    assert {prop.name for prop in p.get_required_properties()} == names
    assert {prop.name for prop in p.get_produced_properties()} == names
    assert p.get_invalidated_properties().empty()


# Example 3: Pattern 5 on a kernel marked windowize.
O3 = '''@pl.program
class O3:
    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)
    def k(x__ssa_v0: pl.Tensor[[64, 64], pl.FP32], i__ssa_v0: pl.Scalar[pl.INDEX], out__ssa_v0: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        pl.func_attr({"windowize": True})
        t__ssa_v0: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x__ssa_v0, [i__ssa_v0 * 16, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        u__ssa_v0: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t__ssa_v0)
        r__ssa_v0: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(u__ssa_v0, [i__ssa_v0 * 16, 0], out__ssa_v0)
        return r__ssa_v0
    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def main(self, x__ssa_v0: pl.Tensor[[64, 64], pl.FP32], out__ssa_v0: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        for i__idx_v0, (out__iter_v1,) in pl.range(4, init_values=(out__ssa_v0,)):
            out__ssa_v3: pl.Tensor[[64, 64], pl.FP32] = self.k(x__ssa_v0, i__idx_v0, out__iter_v1)
            out__rv_v2: pl.Tensor[[64, 64], pl.FP32] = pl.yield_(out__ssa_v3)
        return out__rv_v2
'''

O3_EXPECTED = '''@pl.program
class O3:
    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)
    def k(x__ssa_v0: pl.Tensor[[64, 64], pl.FP32], i__ssa_v0: pl.Scalar[pl.INDEX], out__ssa_v0: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        pl.func_attr({"windowize": True})
        t__ssa_v0: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x__ssa_v0, [i__ssa_v0 * 16, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        u__ssa_v0: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t__ssa_v0)
        r__ssa_v0: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(u__ssa_v0, [i__ssa_v0 * 16, 0], out__ssa_v0)
        return r__ssa_v0
    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)
    def k__windowed(x__ssa_v0: pl.Tensor[[16, 64], pl.FP32, pl.TensorView(stride=[64, 1], layout=pl.TensorLayout.ND)], i__ssa_v0: pl.Scalar[pl.INDEX], out__ssa_v0: pl.Out[pl.Tensor[[16, 64], pl.FP32, pl.TensorView(stride=[64, 1], layout=pl.TensorLayout.ND)]]) -> pl.Tensor[[16, 64], pl.FP32, pl.TensorView(stride=[64, 1], layout=pl.TensorLayout.ND)]:
        pl.func_attr({"windowize": True})
        t__ssa_v0: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x__ssa_v0, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        u__ssa_v0: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t__ssa_v0)
        r__ssa_v0: pl.Tensor[[16, 64], pl.FP32, pl.TensorView(stride=[64, 1], layout=pl.TensorLayout.ND)] = pl.tile.store(u__ssa_v0, [0, 0], out__ssa_v0)
        return r__ssa_v0
    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def main(self, x__ssa_v0: pl.Tensor[[64, 64], pl.FP32], out__ssa_v0: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        for i__idx_v0, (out__iter_v1,) in pl.range(4, init_values=(out__ssa_v0,)):
            x__ssa_v0__window: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.slice(x__ssa_v0, [16, 64], [i__idx_v0 * 16, 0])
            out__iter_v1__window: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.slice(out__iter_v1, [16, 64], [i__idx_v0 * 16, 0])
            out__ssa_v3__windowed: pl.Tensor[[16, 64], pl.FP32, pl.TensorView(stride=[64, 1], layout=pl.TensorLayout.ND)] = self.k__windowed(x__ssa_v0__window, i__idx_v0, out__iter_v1__window)
            out__ssa_v3: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.assemble(out__iter_v1, out__ssa_v3__windowed, [i__idx_v0 * 16, 0])
            out__rv_v2: pl.Tensor[[64, 64], pl.FP32] = pl.yield_(out__ssa_v3)
        return out__rv_v2
'''


def test_example_3_window_externalization():
    assert_optimized(O3, O3_EXPECTED)


def test_without_the_windowize_attr_nothing_is_windowed():
    assert_unchanged(O3.replace('        pl.func_attr({"windowize": True})\n', ""))


O1_SOURCE = '''
import pypto.language as pl


@pl.program
class O1:
    @pl.function
    def main(self, buf: pl.Tensor[[64, 64], pl.FP32], big: pl.Tensor[[128, 64], pl.FP32], dst: pl.Tensor[[256, 64], pl.FP32]) -> pl.Tensor[[256, 64], pl.FP32]:
        for i in pl.range(4):
            with pl.at(level=pl.Level.CORE_GROUP):
                buf = pl.add(buf, 1.0)
        part = pl.slice(big, [64, 64], [64, 0])
        with pl.at(level=pl.Level.CORE_GROUP):
            q = pl.mul(part, buf)
        dst = pl.assemble(dst, q, [64, 0])
        return dst
'''


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
def test_example_1_from_source_through_the_default_pipeline(backend: str):
    import pypto.language as pl
    from pypto_core.testing import checked_pipeline

    compiled = checked_pipeline(backend).run(pl.parse(O1_SOURCE))  # check-run after every pass
    step = compiled.get_function("main_incore_0")
    assert [d.name for d in step.param_directions] == ["InOut"]  # the loop's buffer is reused (Pattern 1)
    mul = compiled.get_function("main_incore_1")
    assert "stride=[64, 1]" in str(mul.params[0].type)  # the sliced input (Pattern 4)

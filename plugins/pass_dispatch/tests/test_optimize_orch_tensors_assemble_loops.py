"""OptimizeOrchTensors, Pattern 3 (docs/passes/optimize_orch_tensors.md): an InCore loop assembling tiles into a
fresh accumulator stored whole into an Out parameter stores each tile into the Out parameter instead."""

from __future__ import annotations

from pypto_plugins.pass_dispatch.tests.orch_helpers import assert_optimized, assert_unchanged

COLUMNS = '''@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def cols(x: pl.Tensor[[16, 128], pl.FP32], out: pl.Out[pl.Tensor[[16, 128], pl.FP32]]) -> pl.Tensor[[16, 128], pl.FP32]:
        acc: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec] = pl.tile.create([16, 128], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        for j, (a,) in pl.range(2, init_values=(acc,)):
            t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, j * 64], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
            e: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t)
            a2: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec] = pl.tile.assemble(a, e, [0, j * 64])
            a_rv: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec] = pl.yield_(a2)
        r: pl.Tensor[[16, 128], pl.FP32] = pl.tile.store(a_rv, [0, 0], out)
        return r

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 128], pl.FP32]) -> pl.Tensor[[16, 128], pl.FP32]:
        o: pl.Tensor[[16, 128], pl.FP32] = pl.tensor.create([16, 128], dtype=pl.FP32)
        y: pl.Tensor[[16, 128], pl.FP32] = self.cols(x, o)
        return y
'''

COLUMNS_EXPECTED = '''@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def cols(x: pl.Tensor[[16, 128], pl.FP32], out: pl.Out[pl.Tensor[[16, 128], pl.FP32]]) -> pl.Tensor[[16, 128], pl.FP32]:
        for j, (a,) in pl.range(2, init_values=(out,)):
            t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, j * 64], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
            e: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t)
            a2: pl.Tensor[[16, 128], pl.FP32] = pl.tile.store(e, [0, j * 64], a)
            a_rv: pl.Tensor[[16, 128], pl.FP32] = pl.yield_(a2)
        return a_rv

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 128], pl.FP32]) -> pl.Tensor[[16, 128], pl.FP32]:
        o: pl.Tensor[[16, 128], pl.FP32] = pl.tensor.create([16, 128], dtype=pl.FP32)
        y: pl.Tensor[[16, 128], pl.FP32] = self.cols(x, o)
        return y
'''


def test_an_assemble_loop_stores_into_the_out_parameter():
    assert_optimized(COLUMNS, COLUMNS_EXPECTED)


def test_the_store_loop_is_a_fixpoint():
    assert_unchanged(COLUMNS_EXPECTED)


def test_an_accumulator_with_defined_contents_stays():
    # Zeros: the window the loop does not write holds zeros, which the final store copies.
    src = COLUMNS.replace("pl.tile.create([16, 128], dtype=pl.FP32, target_memory=pl.Mem.Vec)",
                          "pl.tile.full([16, 128], dtype=pl.FP32, value=0.0)")
    src = src.replace("pl.range(2, init_values=(acc,))", "pl.range(1, init_values=(acc,))")
    assert_unchanged(src)


def test_an_accumulator_read_in_the_loop_stays():
    src = COLUMNS.replace("e: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t)", '''w: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.slice(a, [16, 64], [0, 0])
            e: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(t, w)''')
    src = src.replace("pl.tile.create([16, 128], dtype=pl.FP32, target_memory=pl.Mem.Vec)",
                      "pl.tile.full([16, 128], dtype=pl.FP32, value=0.0)")
    assert_unchanged(src)


def test_a_final_store_at_an_offset_stays():
    src = COLUMNS.replace("out: pl.Out[pl.Tensor[[16, 128], pl.FP32]]) -> pl.Tensor[[16, 128], pl.FP32]",
                          "out: pl.Out[pl.Tensor[[32, 128], pl.FP32]]) -> pl.Tensor[[32, 128], pl.FP32]")
    src = src.replace("r: pl.Tensor[[16, 128], pl.FP32] = pl.tile.store(a_rv, [0, 0], out)",
                      "r: pl.Tensor[[32, 128], pl.FP32] = pl.tile.store(a_rv, [16, 0], out)")
    src = src.replace('''        o: pl.Tensor[[16, 128], pl.FP32] = pl.tensor.create([16, 128], dtype=pl.FP32)
        y: pl.Tensor[[16, 128], pl.FP32] = self.cols(x, o)''', '''        o: pl.Tensor[[32, 128], pl.FP32] = pl.tensor.create([32, 128], dtype=pl.FP32, init_value=0.0)
        y2: pl.Tensor[[32, 128], pl.FP32] = self.cols(x, o)
        y: pl.Tensor[[16, 128], pl.FP32] = pl.tensor.slice(y2, [16, 128], [16, 0])''')
    assert_unchanged(src)


def test_a_loop_with_a_second_carry_stays():
    src = COLUMNS.replace("for j, (a,) in pl.range(2, init_values=(acc,)):", "for j, (a, k) in pl.range(2, init_values=(acc, 0)):")
    src = src.replace("a_rv: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec] = pl.yield_(a2)", '''k2: pl.Scalar[pl.INDEX] = k + 1
            a_rv, k_rv = pl.yield_(a2, k2)''')
    assert_unchanged(src)


def test_a_kernel_returning_its_out_parameter_after_the_final_store():
    src = COLUMNS.replace("        return r\n", "        return out\n", 1)
    assert_optimized(src, COLUMNS_EXPECTED)


def test_a_second_write_into_the_returned_out_parameter_keeps_the_loop():
    src = COLUMNS.replace("        return r\n", '''        again: pl.Tensor[[16, 128], pl.FP32] = pl.tile.store(e2, [0, 0], out)
        return out
''', 1)
    src = src.replace("        r: pl.Tensor[[16, 128], pl.FP32] = pl.tile.store(a_rv, [0, 0], out)\n", '''        r: pl.Tensor[[16, 128], pl.FP32] = pl.tile.store(a_rv, [0, 0], out)
        e2: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
''')
    assert_unchanged(src)

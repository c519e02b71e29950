"""OptimizeOrchTensors, Patterns 2 and 4 (docs/passes/optimize_orch_tensors.md): an InCore tensor parameter
whose argument is a window of a parent -- a result assembled into it (Out), a slice of it (In) -- gets the
parent's trailing row-major strides; call sites that disagree leave it as it is."""

from __future__ import annotations

from pypto_plugins.pass_dispatch.tests.orch_helpers import assert_optimized, assert_unchanged

STRIDE_128 = "pl.TensorView(stride=[128, 1], layout=pl.TensorLayout.ND)"
STRIDE_64 = "pl.TensorView(stride=[64, 1], layout=pl.TensorLayout.ND)"

PAIR = '''@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def pair(a: pl.Tensor[[16, 64], pl.FP32], o1: pl.Out[pl.Tensor[[16, 64], pl.FP32]], o2: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> tuple[pl.Tensor[[16, 64], pl.FP32], pl.Tensor[[16, 64], pl.FP32]]:
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        u: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t)
        s1: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(t, [0, 0], o1)
        s2: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(u, [0, 0], o2)
        return s1, s2

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 64], pl.FP32], dst: pl.Tensor[[32, 128], pl.FP32]) -> pl.Tensor[[32, 128], pl.FP32]:
        c1: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.create([16, 64], dtype=pl.FP32)
        c2: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.create([16, 64], dtype=pl.FP32)
        r: pl.Tuple[pl.Tensor[[16, 64], pl.FP32], pl.Tensor[[16, 64], pl.FP32]] = self.pair(a, c1, c2)
        second: pl.Tensor[[16, 64], pl.FP32] = r[1]
        d: pl.Tensor[[32, 128], pl.FP32] = pl.tensor.assemble(dst, second, [16, 64])
        return d
'''


def test_the_out_parameter_of_an_assembled_tuple_item_gets_the_parents_strides():
    expected = PAIR.replace("o2: pl.Out[pl.Tensor[[16, 64], pl.FP32]]", f"o2: pl.Out[pl.Tensor[[16, 64], pl.FP32, {STRIDE_128}]]")
    expected = expected.replace("s2: pl.Tensor[[16, 64], pl.FP32] =", f"s2: pl.Tensor[[16, 64], pl.FP32, {STRIDE_128}] =")
    assert_optimized(PAIR, expected)


def test_only_a_callee_result_assembled_as_it_is_counts():
    src = PAIR.replace("dst: pl.Tensor[[32, 128], pl.FP32]) -> pl.Tensor[[32, 128], pl.FP32]",
                       "dst: pl.Tensor[[2, 32, 128], pl.FP32]) -> pl.Tensor[[2, 32, 128], pl.FP32]")
    src = src.replace("second: pl.Tensor[[16, 64], pl.FP32] = r[1]", '''second: pl.Tensor[[16, 64], pl.FP32] = r[1]
        second3: pl.Tensor[[1, 16, 64], pl.FP32] = pl.tensor.reshape(second, [1, 16, 64])''')
    src = src.replace("d: pl.Tensor[[32, 128], pl.FP32] = pl.tensor.assemble(dst, second, [16, 64])",
                      "d: pl.Tensor[[2, 32, 128], pl.FP32] = pl.tensor.assemble(dst, second3, [1, 16, 64])")
    assert_unchanged(src)


def test_results_assembled_into_parents_of_other_widths_keep_the_parameter():
    src = PAIR.replace("dst: pl.Tensor[[32, 128], pl.FP32]) ->", "dst: pl.Tensor[[32, 128], pl.FP32], narrow: pl.Tensor[[16, 64], pl.FP32]) ->")
    src = src.replace("        return d\n", '''        c3: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.create([16, 64], dtype=pl.FP32)
        c4: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.create([16, 64], dtype=pl.FP32)
        r2: pl.Tuple[pl.Tensor[[16, 64], pl.FP32], pl.Tensor[[16, 64], pl.FP32]] = self.pair(a, c3, c4)
        other: pl.Tensor[[16, 64], pl.FP32] = r2[1]
        n: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.assemble(narrow, other, [0, 0])
        e: pl.Tensor[[32, 128], pl.FP32] = pl.tensor.assemble(d, n, [0, 0])
        return e
''')
    assert_unchanged(src)


SLICED = '''@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def scale(a: pl.Tensor[[16, 64], pl.FP32], o: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        u: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.muls(t, 3.0)
        s: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(u, [0, 0], o)
        return s

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, big: pl.Tensor[[32, 128], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
        part: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.slice(big, [16, 64], [16, 64])
        c: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.create([16, 64], dtype=pl.FP32)
        r: pl.Tensor[[16, 64], pl.FP32] = self.scale(part, c)
        return r
'''


def test_an_input_passed_a_slice_gets_the_parents_strides():
    expected = SLICED.replace("def scale(a: pl.Tensor[[16, 64], pl.FP32],", f"def scale(a: pl.Tensor[[16, 64], pl.FP32, {STRIDE_128}],")
    assert_optimized(SLICED, expected)


def test_a_reshaped_slice_is_no_slice():
    src = SLICED.replace("pl.tensor.slice(big, [16, 64], [16, 64])", "pl.tensor.slice(big, [8, 128], [16, 0])")
    src = src.replace("part: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.slice", "rows: pl.Tensor[[8, 128], pl.FP32] = pl.tensor.slice")
    src = src.replace("        c: pl.Tensor", "        part: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.reshape(rows, [16, 64])\n        c: pl.Tensor")
    assert_unchanged(src)


def test_slices_of_parents_of_other_widths_keep_the_parameter():
    src = SLICED.replace("def main(self, big: pl.Tensor[[32, 128], pl.FP32])",
                         "def main(self, big: pl.Tensor[[32, 128], pl.FP32], wide: pl.Tensor[[16, 256], pl.FP32])")
    src = src.replace("        return r\n", '''        part2: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.slice(wide, [16, 64], [0, 64])
        c2: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.create([16, 64], dtype=pl.FP32)
        r2: pl.Tensor[[16, 64], pl.FP32] = self.scale(part2, c2)
        both: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.add(r, r2)
        return both
''')
    assert_unchanged(src)


def test_a_whole_tensor_with_the_same_strides_agrees_with_a_slice():
    src = SLICED.replace("def main(self, big: pl.Tensor[[32, 128], pl.FP32])",
                         "def main(self, big: pl.Tensor[[32, 64], pl.FP32], whole: pl.Tensor[[16, 64], pl.FP32])")
    src = src.replace("        return r\n", '''        c2: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.create([16, 64], dtype=pl.FP32)
        r2: pl.Tensor[[16, 64], pl.FP32] = self.scale(whole, c2)
        both: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.add(r, r2)
        return both
''')
    src = src.replace("pl.tensor.slice(big, [16, 64], [16, 64])", "pl.tensor.slice(big, [16, 64], [16, 0])")
    expected = src.replace("def scale(a: pl.Tensor[[16, 64], pl.FP32],", f"def scale(a: pl.Tensor[[16, 64], pl.FP32, {STRIDE_64}],")
    assert_optimized(src, expected)


def test_a_parameter_with_strides_keeps_them():
    src = SLICED.replace("def scale(a: pl.Tensor[[16, 64], pl.FP32],", f"def scale(a: pl.Tensor[[16, 64], pl.FP32, {STRIDE_64}],")
    assert_unchanged(src)

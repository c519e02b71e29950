"""PyPTO's worked examples: their sources parse and print exactly as PyPTO printed them.

The golden texts in appendix_a/ are PyPTO's printed texts, copied verbatim. Texts that are pass outputs (outlined,
lowered, expanded) are valid DSL themselves: parse -> print must reproduce them character for character,
which pins the printer without running any pass (the pass tests live with the pass plugins).
"""

import textwrap
from pathlib import Path

import pytest

import pypto.language as pl
from pypto import ir
from pypto_core.language.roundtrip import assert_roundtrip, text_diff

GOLDEN = Path(__file__).parent / "appendix_a"

A1_SOURCE = """
import pypto.language as pl

@pl.program
class Basic:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        y = pl.add(x, 1.0)
        with pl.at(level=pl.Level.CORE_GROUP):
            tile = pl.load(y, [0], [64])
            tile_sq = pl.mul(tile, tile)
            result_tile = pl.add(tile_sq, 1.0)
            result = pl.store(result_tile, [0], x)
        z = pl.add(result, 2.0)
        return z
"""

A1_PRINTED = """# pypto.program: Basic
import pypto.language as pl

@pl.program
class Basic:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        y: pl.Tensor[[64], pl.FP32] = pl.tensor.adds(x, 1.0)
        with pl.at(level=pl.Level.CORE_GROUP):
            tile: pl.Tile[[64], pl.FP32, pl.Mem.Vec] = pl.tile.load(y, [0], [64], [64], target_memory=pl.Mem.Vec)
            tile_sq: pl.Tile[[64], pl.FP32, pl.Mem.Vec] = pl.tile.mul(tile, tile)
            result_tile: pl.Tile[[64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(tile_sq, 1.0)
            result: pl.Tensor[[64], pl.FP32] = pl.tile.store(result_tile, [0], x)
        z: pl.Tensor[[64], pl.FP32] = pl.tensor.adds(result, 2.0)
        return z"""

A2_SOURCE = """
import pypto.language as pl

@pl.program
class Loop:
    @pl.function
    def k(self, a: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
        for i in pl.range(4):
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(a, [i * 64, 0], [64, 128])
                pl.store(pl.mul(t, 2.0), [i * 64, 0], out)
        return out
"""

A2_PRINTED = """# pypto.program: Loop
import pypto.language as pl

@pl.program
class Loop:
    @pl.function
    def k(self, a: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
        for i in pl.range(4):
            with pl.at(level=pl.Level.CORE_GROUP):
                t: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [i * 64, 0], [64, 128], [64, 128], target_memory=pl.Mem.Vec)
                pl.tile.store(pl.tile.muls(t, 2.0), [i * 64, 0], out)
        return out"""

A3_METHOD = """
    @pl.function
    def main(self, a: pl.Tensor[[128, 64], pl.FP32], out: pl.Out[pl.Tensor[[128, 64], pl.FP32]]) -> pl.Tensor[[128, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="half_exp", optimizations=[pl.cross_core_slot(slot_num=4)]):
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                base = aiv_id * 64
                t = pl.load(a, [base, 0], [64, 64])
                out = pl.store(pl.exp(t), [base, 0], out)
        return out
"""
A3_SOURCE = "import pypto.language as pl\n\n@pl.program\nclass Region:" + A3_METHOD


def golden(name: str) -> str:
    text = (GOLDEN / name).read_text()
    return text[:-1] if text.endswith("\n") else text  # the printer emits no trailing newline


def assert_prints(program, expected: str) -> None:
    actual = ir.python_print(program, format=False)
    assert actual == expected, "\n" + text_diff(expected, actual)


@pytest.mark.parametrize(("source", "expected"), [(A1_SOURCE, A1_PRINTED), (A2_SOURCE, A2_PRINTED)],
                         ids=["A.1", "A.2"])
def test_sources_parse_and_print(source, expected):
    program = pl.parse(textwrap.dedent(source))
    assert_prints(program, expected)
    assert_roundtrip(program)


def test_a3_source_prints_as_parsed():
    program = pl.parse(A3_SOURCE)
    assert_prints(program, golden("a3_as_parsed.txt"))
    assert_roundtrip(program)


def test_a3_region_ir():
    # "As parsed": the region sits in place in the named scope, the scope's attrs carry slot_num.
    main = pl.parse(A3_SOURCE).get_function("main")
    scope = ir.flatten_to_stmts(main.body)[0]
    assert isinstance(scope, ir.InCoreScopeStmt)
    assert scope.name_hint == "half_exp" and scope.attrs == {"slot_num": 4}
    assert isinstance(scope.body, ir.SplitAivScopeStmt)


@pytest.mark.parametrize("name", ["a1_outlined.txt", "a2_outlined_head.txt", "a3_as_parsed.txt",
                                  "a3_outlined.txt", "a4_before.txt", "a4_after.txt", "a5_expanded.txt"])
def test_golden_text_is_a_print_fixpoint(name):
    text = golden(name)
    program = pl.parse(text, filename=name)
    assert_prints(program, text)
    assert_roundtrip(program)


def test_a4_after_keeps_composite_valid_shapes():
    # Composite valid-shape dims print INDEX leaves as pl.const(...) and re-parse without folding.
    program = pl.parse(golden("a4_after.txt"))
    func = program.get_function("split_auto")
    popped = ir.flatten_to_stmts(func.body)[1]
    valid = popped.var.type.tile_view.valid_shape
    assert isinstance(valid[0], ir.Min) and isinstance(valid[1], ir.ConstInt)


def test_a5_program_built_from_ir_prints_the_golden_text():
    # Parse the golden text, rebuild an equal program node by node, print it: the text does not depend on
    # spans, source order or how the IR was made.
    program = pl.parse(golden("a5_expanded.txt"))
    rebuilt = ir.Program([ir.Function(f.name, list(zip(f.params, f.param_directions)), list(f.return_types),
                                      f.body, None, f.func_type, attrs=dict(f.attrs))
                          for f in reversed(list(program.functions.values()))], program.name)
    ir.assert_structural_equal(program, rebuilt)
    assert_prints(rebuilt, golden("a5_expanded.txt"))

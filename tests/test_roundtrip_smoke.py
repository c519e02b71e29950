"""Print -> parse is a fixpoint on the bundled example."""

from pathlib import Path

import pypto.language as pl
from pypto import ir

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "basic.py"


def test_example_roundtrips():
    program = pl.parse(EXAMPLE.read_text(), str(EXAMPLE))
    text = ir.python_print(program)
    assert "pl.tile.load(y, [0], [64], [64], target_memory=pl.Mem.Vec)" in text
    ir.assert_structural_equal(program, pl.parse(text))


_DIM_ONLY_IN_A_RETURN_TYPE = '''import pypto.language as pl
M = pl.dynamic("M")

@pl.program
class P:
    @pl.function
    def helper(self, x: pl.Tensor[[64, 16], pl.INT32]) -> pl.Tensor[[M, 16], pl.INT32]:
        y = pl.sub(x, x)
        return y

    @pl.function
    def main(self, x: pl.Tensor[[M, 16], pl.INT32]) -> pl.Tensor[[M, 16], pl.INT32]:
        h = self.helper(x)
        return h
'''


def test_a_dynamic_dim_only_a_return_type_names_roundtrips():
    # The first function names M only in its return type; were dims mapped inside parameter types only,
    # structural equality would find the program unequal to its own re-parse.
    program = pl.parse(_DIM_ONLY_IN_A_RETURN_TYPE)
    reparsed = pl.parse(ir.python_print(program))
    ir.assert_structural_equal(program, reparsed)
    assert ir.structural_hash(program) == ir.structural_hash(reparsed)
    other = pl.parse(_DIM_ONLY_IN_A_RETURN_TYPE.replace("-> pl.Tensor[[M, 16], pl.INT32]:\n        y",
                                                        "-> pl.Tensor[[64, 16], pl.INT32]:\n        y"))
    assert not ir.structural_equal(program, other)  # the return type still takes part

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

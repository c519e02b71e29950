"""Shared steps of the tile-pass tests: the tile preset up to a pass, the reference machine, Expected text."""

from __future__ import annotations

import pypto.language as pl
from pypto import ir, passes
from pypto_core.testing import same_results  # noqa: F401 - re-exported for the tests

HEADER = "import pypto.language as pl\n\n"
STAGES = ("convert_to_ssa", "normalize_stmt_structure", "outline_incore_scopes", "convert_tensor_to_tile_ops",
          "flatten_tile_nd_to_2d", "infer_tile_memory_space")


def run_stages(program: ir.Program, first: str, last: str) -> ir.Program:
    for name in STAGES[STAGES.index(first):STAGES.index(last) + 1]:
        program = getattr(passes, name)()(program)
    return program


def lower(src: str, upto: str = "convert_tensor_to_tile_ops", run: bool = True) -> ir.Program:
    """parse -> the tile preset up to `upto`; the outlined program and the result must compute the same
    outputs on the reference machine (each pass already ran under verification + round trip)."""
    program = pl.parse(HEADER + src)
    outlined = run_stages(program, "convert_to_ssa", "outline_incore_scopes")
    after = run_stages(outlined, STAGES[STAGES.index("outline_incore_scopes") + 1], upto)
    if run:
        same_results(program, after)
    return after


def expect(after: ir.Program, expected_src: str) -> None:
    """Structural comparison with a program written out in the DSL (names do not matter)."""
    ir.assert_structural_equal(after, pl.parse(HEADER + expected_src))


def function(program: ir.Program, name: str) -> ir.Function:
    f = program.get_function(name)
    assert f is not None, f"no function {name}; have {[gv.name for gv in program.functions]}"
    return f


def printed(program: ir.Program, name: str | None = None) -> str:
    node = function(program, name) if name else program
    return ir.python_print(node, format=False)

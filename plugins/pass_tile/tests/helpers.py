"""Shared steps of the tile-pass tests: the tile preset up to a pass, the reference machine, Expected text."""

from __future__ import annotations

import pytest

import pypto.language as pl
from pypto import ir, passes
from pypto_core.ir.enums import FunctionType
from pypto_core.passes.manager import PassManager
from pypto_core.testing import checked_pipeline, same_results

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


# -- the whole default pipeline (every pass verified, round-tripped and checked on the machine) ------------

BACKENDS = ("Ascend910B", "Ascend950")


def default_pipeline(backend: str) -> PassManager:
    return checked_pipeline(backend)


def compiled(src: str, backend: str) -> ir.Program:
    """The program through the default pipeline; its outputs equal the source program's."""
    before = pl.parse(src)
    after = default_pipeline(backend).run(before)
    left = [f.name for f in after.functions.values() if f.func_type is FunctionType.InCore]
    assert not left, f"InCore functions left after the default pipeline: {left}"
    same_results(before, after, backend=backend)
    return after


def rejected(src: str, backend: str, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        default_pipeline(backend).run(pl.parse(src))

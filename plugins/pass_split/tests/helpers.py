"""Shared steps of the split-pass tests: parse, run a pass under verification + round trip (the autouse
context), and compare outputs before and after on the reference machine (two AIV lanes)."""

from __future__ import annotations

import pypto.language as pl
from pypto import ir, passes
from pypto_core.testing import same_results

HEADER = "import pypto.language as pl\n\n"


def parse(src: str) -> ir.Program:
    return pl.parse(HEADER + src)


def lavs(src: str, run: bool = True) -> ir.Program:
    """parse -> lower_auto_vector_split; the outputs must not change (unless `run` is False)."""
    before = parse(src)
    after = passes.lower_auto_vector_split()(before)
    if run:
        same_results(before, after)
    return after


def expect(after: ir.Program, expected_src: str) -> None:
    ir.assert_structural_equal(after, parse(expected_src))


def function(program: ir.Program, name: str) -> ir.Function:
    f = program.get_function(name)
    assert f is not None, f"no function {name}; have {[gv.name for gv in program.functions]}"
    return f


def ops(func: ir.Function) -> list[str]:
    """The op names of the function's top-level assignments, in order."""
    return [s.value.op.name for s in ir.flatten_to_stmts(func.body)
            if isinstance(s, ir.AssignStmt) and isinstance(s.value, ir.Call)]

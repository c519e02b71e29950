"""Shared steps of the OutlineIncoreScopes tests: SSA, outline, round trip, and the reference machine."""

from __future__ import annotations

import pypto.language as pl
from pypto import ir, passes
from pypto_core.interp import Machine, compare_outputs, make_inputs, run_program


def outline(src: str, run: bool = True) -> ir.Program:
    """parse -> convert_to_ssa -> outline_incore_scopes; print -> parse must be a fixpoint, and (unless
    `run` is False) the program must compute the same outputs before and after on the reference machine."""
    program = pl.parse(src)
    after = passes.outline_incore_scopes()(passes.convert_to_ssa()(program))
    reparsed = pl.parse(ir.python_print(after))
    ir.assert_structural_equal(after, reparsed)
    if run:
        same_results(program, after)
    return after


def same_results(before: ir.Program, after: ir.Program, seed: int = 0) -> None:
    """Every entry function gives the same outputs (and Out/InOut params) before and after."""
    for entry in Machine(before).roots():
        inputs = make_inputs(entry, seed=seed)
        checks = compare_outputs(run_program(before, inputs, entry.name), run_program(after, inputs, entry.name))
        assert checks, f"{entry.name} produces no output to compare"
        bad = [f"{c.label}: {c.comparison.describe()}" for c in checks if not c.comparison.ok]
        assert not bad, f"{entry.name} computes something else after outlining: " + "; ".join(bad)


def expect(after: ir.Program, expected_text: str) -> None:
    """Structural comparison with a program written out in the DSL (names do not matter)."""
    ir.assert_structural_equal(after, pl.parse(expected_text))


def function(program: ir.Program, name: str) -> ir.Function:
    f = program.get_function(name)
    assert f is not None, f"no function {name}; have {[gv.name for gv in program.functions]}"
    return f

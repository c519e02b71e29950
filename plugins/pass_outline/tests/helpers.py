"""Shared steps of the OutlineIncoreScopes tests: SSA, outline, round trip, and the reference machine."""

from __future__ import annotations

import pypto.language as pl
from pypto import ir, passes
from pypto_core.testing import same_results  # noqa: F401 - re-exported for the tests


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


def expect(after: ir.Program, expected_text: str) -> None:
    """Structural comparison with a program written out in the DSL (names do not matter)."""
    ir.assert_structural_equal(after, pl.parse(expected_text))


def function(program: ir.Program, name: str) -> ir.Function:
    f = program.get_function(name)
    assert f is not None, f"no function {name}; have {[gv.name for gv in program.functions]}"
    return f

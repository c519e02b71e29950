"""Every program of the OutlineIncoreScopes tests computes the same before and after
ConvertToSSA + OutlineIncoreScopes on the reference machine (issue 5, "Done means")."""

import ast
from pathlib import Path

import pytest

import pypto.language as pl
from pypto import passes
from pypto_core.interp import Machine, compare_outputs, make_inputs, run_program

OUTLINE_TESTS = Path(__file__).resolve().parents[2] / "plugins" / "pass_outline" / "tests"


def _programs() -> list:
    """(id, source) of every complete `@pl.program` source in those tests that outlines cleanly
    (templates and sources the pass must reject are checked by the outline tests themselves)."""
    found = []
    for path in sorted(OUTLINE_TESTS.glob("test_*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and "@pl.program" in node.value:
                try:
                    passes.outline_incore_scopes()(passes.convert_to_ssa()(pl.parse(node.value)))
                except Exception:  # noqa: BLE001 - not an outlinable program: not this test's subject
                    continue
                found.append(pytest.param(node.value, id=f"{path.stem}:{node.lineno}"))
    return found


PROGRAMS = _programs()


def test_the_outline_tests_provide_programs():
    assert len(PROGRAMS) >= 10


@pytest.mark.parametrize("source", PROGRAMS)
def test_outlining_preserves_what_the_program_computes(source):
    before = pl.parse(source)
    after = passes.outline_incore_scopes()(passes.convert_to_ssa()(before))
    for entry in Machine(before).roots():
        inputs = make_inputs(entry, seed=0)
        checks = compare_outputs(run_program(before, inputs, entry.name), run_program(after, inputs, entry.name))
        assert checks, f"{entry.name} produces no output to compare"
        bad = [f"{c.label}: {c.comparison.describe()}" for c in checks if not c.comparison.ok]
        assert not bad, f"{entry.name}: " + "; ".join(bad)

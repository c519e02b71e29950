"""The `tile` preset on the programs that existed before it: examples/*.py and the programs the reference
machine's tests (tests/interp) keep as module-level text, on both backends, with round trip + check-run.

Templates are filled with the first values their tests use; a template whose fields this table does not
know is skipped by name (the test asserts how many programs ran, so a skip cannot grow silently).
"""

from __future__ import annotations

import ast
import string
from pathlib import Path

import pytest

from pypto_core.errors import VerificationError
from pypto_core.language.api import parse

from .test_tile_corpus import BACKENDS, assert_same_results, tile_pass_manager, tile_problems

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("*.py"))
FIELD_VALUES = {"D": "FP32", "DT": "FP16", "BR": "16", "OP": "add", "VR": "10", "VC": "24", "ROW": "row_sum",
                "COL": "col_sum", "R": "16", "C": "32"}
# Fields one template needs other values for; templates that need inputs random data cannot give.
FIELD_OVERRIDES = {"test_elementwise.UNARY": {"OP": "exp"}}
NEEDS_CHOSEN_INPUTS = {"test_semantics_misc.VIEWS"}  # gather indices must lie inside the table
# Machine tests of pass *outputs*, which the passes reject as inputs (a region in an InCore function not
# marked split_aiv: AivSplitValid check (h)).
NOT_PASS_INPUTS = {"test_split_pass_shapes.V2C_GATHER_BEFORE": r"CORE_GROUP-level region"}
MIN_INTERP_PROGRAMS = 15


def interp_programs() -> list[tuple[str, str]]:
    """(label, text) of every module-level program string in tests/interp whose template fields are known."""
    out: list[tuple[str, str]] = []
    for path in sorted((ROOT / "tests" / "interp").glob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if not (isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
                    and isinstance(node.value.value, str) and "@pl." in node.value.value):
                continue
            text = node.value.value
            fields = {f for _, f, _, _ in string.Formatter().parse(text) if f}
            if not fields <= FIELD_VALUES.keys():
                continue
            name = node.targets[0].id if isinstance(node.targets[0], ast.Name) else "?"
            label = f"{path.stem}.{name}"
            if label in NEEDS_CHOSEN_INPUTS:
                continue
            values = {**FIELD_VALUES, **FIELD_OVERRIDES.get(label, {})}
            out.append((label, text.format(**values) if fields else text))
    return out


INTERP = interp_programs()


def test_enough_interp_programs_run():
    assert len(INTERP) >= MIN_INTERP_PROGRAMS, [label for label, _ in INTERP]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_examples_through_the_tile_preset(path: Path, backend: str):
    before = parse(path.read_text(encoding="utf-8"), str(path))
    after = tile_pass_manager(backend).run(before)
    assert_same_results(before, after, backend)
    assert not tile_problems(after)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("label", "text"), INTERP, ids=[label for label, _ in INTERP])
def test_interp_programs_through_the_tile_preset(label: str, text: str, backend: str):
    before = parse(text, f"<{label}>")
    if label in NOT_PASS_INPUTS:
        with pytest.raises(VerificationError, match=NOT_PASS_INPUTS[label]):
            tile_pass_manager(backend).run(before)
        return
    after = tile_pass_manager(backend).run(before)
    assert_same_results(before, after, backend)
    assert not tile_problems(after)

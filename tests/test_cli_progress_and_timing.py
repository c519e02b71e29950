"""Long work shows progress and honest timing (docs/README.md, the command line): `--progress` shows each pass and
each check-run execution as it starts; `--timing` reports verification, round trip, check-run and printing as
their own rows beside the passes, with the total and the wall time."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from pypto_core.cli import main

from .default_preset import default_passes, step_of

EXAMPLE = str(Path(__file__).resolve().parents[1] / "examples" / "basic.py")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_compile_progress_shows_each_pass_and_each_check_run_execution(capsys):
    code, _, err = run(capsys, "compile", EXAMPLE, "--progress", "--verify", "check-run", "-o", "/dev/null")
    assert code == 0
    lines = [line for line in err.splitlines() if line.startswith("pypto: ")]
    passes = default_passes()
    n, first, outline = len(passes), passes[0], step_of("outline_incore_scopes")
    assert lines[0] == f"pypto: [1/{n}] {first}"
    assert f"pypto: [1/{n}] check-run: running the program given to {first} on the machine" in lines
    ran_outline = f"pypto: [{outline}/{n}] check-run: running the program after outline_incore_scopes on the machine"
    assert ran_outline in lines
    assert lines.index(f"pypto: [{outline}/{n}] outline_incore_scopes") < lines.index(ran_outline)
    assert re.fullmatch(rf"pypto: {n} of {n} passes done in \d+\.\d\d s", lines[-1])


def test_compile_shows_no_progress_off_a_terminal_unless_asked(capsys):
    code, _, err = run(capsys, "compile", EXAMPLE, "-o", "/dev/null")
    assert code == 0 and "pypto: [" not in err


def test_a_failing_run_still_closes_the_progress_display(capsys):
    code, _, err = run(capsys, "compile", EXAMPLE, "--progress", "--pipeline", "convert_tensor_to_tile_ops")
    assert code != 0
    assert "pypto: 0 of 1 passes done" in err  # the pipeline was refused before its first pass: closed anyway


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_on_a_terminal_progress_is_one_status_line_that_goes_away():
    import pypto.language as pl
    from pypto import passes
    from pypto_core.passes.context import PassContext
    from pypto_core.passes.instruments.progress import ProgressInstrument

    terminal = _Terminal()
    progress = ProgressInstrument(2, stream=terminal)
    assert progress.live
    program = pl.parse(open(EXAMPLE).read())
    with PassContext([progress]):
        passes.outline_incore_scopes()(passes.convert_to_ssa()(program))
        assert progress._status is not None  # the display is up while the run goes on
    progress.finish_run(program)
    assert progress._status is None
    assert "pypto: [" not in terminal.getvalue()  # no log lines on a terminal


def _rows(err: str) -> dict[str, float]:
    rows = {}
    for line in err.splitlines():
        cells = [c.strip() for c in line.split("│") if c.strip()]
        if len(cells) >= 3 and re.fullmatch(r"\d+\.\d{3}", cells[-2]):
            rows[cells[-3]] = float(cells[-2])
    return rows


def test_timing_reports_checks_and_wall_time_as_rows(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    code, _, err = run(capsys, "compile", EXAMPLE, "--timing", "--verify", "check-run", "-o", "/dev/null")
    assert code == 0
    rows = _rows(err)
    for label in ("convert_to_ssa", "passes", "verification", "check-run (the machine)", "total",
                  "wall time of the run"):
        assert label in rows, (label, rows)
    # check-run ran the program ten times: it is not hidden in a 9-pass total
    assert rows["check-run (the machine)"] > 0 and rows["total"] >= rows["passes"] + rows["check-run (the machine)"]
    assert rows["wall time of the run"] >= rows["total"] * 0.99


def test_timing_shows_the_round_trip_and_printing_rows(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    code, _, err = run(capsys, "compile", EXAMPLE, "--timing", "--verify", "roundtrip", "--print-after-all",
                       "-o", "/dev/null")
    assert code == 0
    rows = _rows(err)
    assert "round trip (print, parse, compare)" in rows and "printing" in rows and "verification" in rows

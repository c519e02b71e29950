"""`passes.ReportInstrument(output_dir)` and the core perf-hint channel (pypto_core/passes/perf_hints.py): with
the instrument in the active PassContext a hint is appended to `<dir>/perf_hints.log`, else written to stderr;
a path that is not a writable directory is a ValueError naming it."""

from __future__ import annotations

import os
import re

import pytest

from pypto import passes
from pypto_core.passes.perf_hints import perf_hint

LINE = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d I \| \[perf_hint PH-X-001\] SomePass: too slow$")


def test_without_a_report_instrument_the_hint_goes_to_stderr(capfd):
    perf_hint("PH-X-001", "SomePass", "too slow")
    err = capfd.readouterr().err.splitlines()
    assert len(err) == 1 and LINE.match(err[0])


def test_the_hint_names_its_source_location(capfd):
    class Span:
        filename, begin_line, begin_column = "k.py", 7, 9

    perf_hint("PH-X-001", "SomePass", "too slow", Span())
    assert capfd.readouterr().err.rstrip().endswith("SomePass: too slow at k.py:7:9")


def test_with_a_report_instrument_the_hint_is_appended_to_perf_hints_log(tmp_path, capfd):
    report = passes.ReportInstrument(tmp_path)
    assert report.get_output_dir() == str(tmp_path)
    with passes.PassContext([report]):
        perf_hint("PH-X-001", "SomePass", "too slow")
        perf_hint("PH-X-001", "SomePass", "too slow")
    lines = (tmp_path / "perf_hints.log").read_text().splitlines()
    assert len(lines) == 2 and all(LINE.match(line) for line in lines)
    assert capfd.readouterr().err == ""


def test_a_pipeline_run_inside_the_context_keeps_the_report(tmp_path):
    report = passes.ReportInstrument(tmp_path)
    with passes.PassContext([report]):
        inner = passes.PassContext.current().extended([report])  # what a pipeline run pushes
        with inner:
            perf_hint("PH-X-001", "SomePass", "too slow")
    assert len((tmp_path / "perf_hints.log").read_text().splitlines()) == 1  # once, not per repeated instrument


def test_an_existing_log_is_kept_and_appended_to(tmp_path):
    (tmp_path / "perf_hints.log").write_text("mine\n")
    with passes.PassContext([passes.ReportInstrument(tmp_path)]):
        perf_hint("PH-X-001", "SomePass", "too slow")
    lines = (tmp_path / "perf_hints.log").read_text().splitlines()
    assert lines[0] == "mine" and LINE.match(lines[1])


def test_a_missing_directory_is_created(tmp_path):
    target = tmp_path / "reports" / "run1"
    passes.ReportInstrument(str(target))
    assert target.is_dir()


def test_a_file_is_not_a_report_directory(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("keep me")
    with pytest.raises(ValueError, match=r"ReportInstrument: '.*notes.txt' is not a directory"):
        passes.ReportInstrument(path)
    assert path.read_text() == "keep me"


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write anywhere")
def test_a_read_only_directory_is_refused(tmp_path):
    tmp_path.chmod(0o500)
    try:
        with pytest.raises(ValueError, match="is not writable; give a directory you can write to"):
            passes.ReportInstrument(tmp_path)
    finally:
        tmp_path.chmod(0o700)


def test_a_log_path_that_is_a_directory_is_refused(tmp_path):
    (tmp_path / "perf_hints.log").mkdir()
    with pytest.raises(ValueError, match="perf_hints.log' exists and is not a writable file"):
        passes.ReportInstrument(tmp_path)

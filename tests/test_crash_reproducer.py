"""The crash reproducer of `pypto compile` and `pypto compile --replay`."""

from __future__ import annotations

from pathlib import Path

import pytest

import pypto.language as pl
from pypto_core.cli import main
from pypto_core.passes.pipeline_spec import parse_pipeline
from pypto_core.reduce.reproducer import (
    DEFAULT_NAME,
    MAGIC,
    is_reproducer,
    parse_reproducer,
    pipeline_spec,
    toml_value,
)

from .test_pipeline_toys.support import TOY_SOURCE
from .test_pipeline_toys.toy_failing import failing_plugin  # noqa: F401 - a fixture
from .test_pipeline_toys.toy_passes import ToyBackendProbe, ToyMark


@pytest.fixture
def work(tmp_path, monkeypatch, failing_plugin) -> Path:  # noqa: F811
    monkeypatch.chdir(tmp_path)
    (tmp_path / "toy.py").write_text(TOY_SOURCE)
    return tmp_path


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def header(path: Path) -> dict[str, str]:
    out = {}
    for line in path.read_text().splitlines():
        if not line.startswith("# ") or ": " not in line:
            continue
        key, _, value = line[2:].partition(": ")
        out.setdefault(key, value)
    return out


def test_a_crashing_pass_writes_its_input_and_the_rest_of_the_pipeline(capsys, work):
    code, out, err = run(capsys, "compile", "toy.py", "--pipeline", 'toy_mark{label="x y"},toy_crash,toy_unmark')
    assert code == 3 and out == ""
    path = work / DEFAULT_NAME
    assert f"wrote a reproducer of this failure to {path}" in err
    assert f"pypto compile --replay {path}" in err
    text = path.read_text()
    assert text.startswith(MAGIC + " v1\n")
    h = header(path)
    assert h["pipeline"] == "toy_crash,toy_unmark"  # from the failing pass on; toy_mark already ran
    assert (h["backend"], h["verify"], h["seed"], h["failure"]) == ("Ascend910B", "basic", "0", "internal-error")
    assert "KeyError: 'missing'" in h["message"] and h["until"] == "KeyError: 'missing'"
    program = pl.parse(text)  # the failing pass's input: toy_mark's output
    assert 'pl.func_attr({"toy_mark": "x y"})' in program.as_python()


def test_replay_reruns_exactly_the_failure_and_keeps_the_file(capsys, work):
    run(capsys, "compile", "toy.py", "--pipeline", "toy_mark,toy_crash", "--verify", "roundtrip")
    path = work / DEFAULT_NAME
    before = path.read_text()
    (work / "pypto.toml").write_text('[pipeline]\npasses = ["toy_reject"]\n')  # not read by --replay
    code, out, err = run(capsys, "compile", "--replay", DEFAULT_NAME)
    assert code == 3 and "pass 'toy_crash' (ToyCrash" in err and "KeyError: 'missing'" in err
    assert "wrote a reproducer" not in err and path.read_text() == before
    assert header(path)["verify"] == "roundtrip"


def test_replay_uses_the_recorded_backend_and_pipeline(capsys, work):
    run(capsys, "compile", "toy.py", "--pipeline", "toy_crash", "--backend", "Ascend950")
    path = work / DEFAULT_NAME
    assert header(path)["backend"] == "Ascend950"
    path.write_text(path.read_text().replace("# pipeline: toy_crash", "# pipeline: toy_backend_probe,toy_crash"))
    ToyBackendProbe.seen.clear()
    code, _, _ = run(capsys, "compile", "--replay", str(path))
    assert code == 3 and ToyBackendProbe.seen == ["Ascend950"]


def test_options_of_the_remaining_passes_are_recorded(capsys, work):
    run(capsys, "compile", "toy.py", "--pipeline", 'toy_crash,toy_mark{label="a, b",times=2}')
    steps = parse_pipeline(header(work / DEFAULT_NAME)["pipeline"])
    assert [(s.name, s.options) for s in steps] == [("toy_crash", {}), ("toy_mark", {"label": "a, b", "times": 2})]
    assert pipeline_spec([ToyMark()]) == "toy_mark"  # defaults are not written
    assert toml_value({"k": [True, 1.5, "q\"uote"]}) == '{"k" = [true, 1.5, "q\\"uote"]}'


def test_a_check_run_mismatch_writes_a_reproducer_that_replays_it(capsys, work):
    code, _, err = run(capsys, "compile", "toy.py", "--pipeline", "toy_mark,toy_miscompile", "--verify", "check-run",
                       "--reproducer", "mm.py")
    assert code == 3 and "wrote a reproducer of this failure to mm.py" in err
    h = header(work / "mm.py")
    assert (h["pipeline"], h["verify"], h["failure"]) == ("toy_miscompile", "check-run", "mismatch")
    code, _, err = run(capsys, "compile", "--replay", "mm.py")
    assert code == 3 and "changed what the program computes" in err


def test_a_pass_breaking_the_ir_writes_a_reproducer(capsys, work):
    code, _, err = run(capsys, "compile", "toy.py", "--pipeline", "toy_break_types")
    assert code == 3 and header(work / DEFAULT_NAME)["failure"] == "verification"


def test_a_rejected_program_writes_none(capsys, work):
    code, _, err = run(capsys, "compile", "toy.py", "--pipeline", "toy_reject")
    assert code == 1 and "reproducer" not in err and not (work / DEFAULT_NAME).exists()


def test_no_reproducer_flag(capsys, work):
    code, _, err = run(capsys, "compile", "toy.py", "--pipeline", "toy_crash", "--no-reproducer")
    assert code == 3 and "reproducer" not in err and not (work / DEFAULT_NAME).exists()


def test_a_file_that_is_not_a_reproducer_is_never_overwritten(capsys, work):
    (work / DEFAULT_NAME).write_text("my own notes\n")
    code, _, err = run(capsys, "compile", "toy.py", "--pipeline", "toy_crash")
    assert code == 3 and (work / DEFAULT_NAME).read_text() == "my own notes\n"
    assert is_reproducer(work / "pypto-reproducer-1.py") and "pypto-reproducer-1.py" in err
    run(capsys, "compile", "toy.py", "--pipeline", "toy_crash", "--reproducer", "toy.py")
    assert (work / "toy.py").read_text() == TOY_SOURCE and is_reproducer(work / "toy-1.py")
    # an earlier reproducer is replaced
    run(capsys, "compile", "toy.py", "--pipeline", "toy_mark,toy_crash", "--reproducer", "toy-1.py")
    assert header(work / "toy-1.py")["pipeline"] == "toy_crash" and not (work / "toy-2.py").exists()


def test_disabled_plugins_are_recorded(capsys, work):
    run(capsys, "compile", "toy.py", "--pipeline", "toy_crash", "-p", "no:backend_ascend950")
    assert header(work / DEFAULT_NAME)["disabled-plugins"] == "backend_ascend950"
    code, _, err = run(capsys, "compile", "--replay", DEFAULT_NAME, "--backend", "Ascend950")
    assert code == 2 and "--backend cannot be combined" in err


def test_replay_errors(capsys, work):
    code, _, err = run(capsys, "compile", "--replay", "toy.py")
    assert code == 1 and "not a pypto reproducer" in err
    code, _, err = run(capsys, "compile", "toy.py", "--replay", "toy.py")
    assert code == 2
    code, _, err = run(capsys, "compile")
    assert code == 2 and "give a program FILE" in err
    (work / "bad.py").write_text(MAGIC + " v1\n# verify: basic\n")
    with pytest.raises(ValueError, match="no '# pipeline: ...' line"):
        parse_reproducer((work / "bad.py").read_text(), "bad.py")

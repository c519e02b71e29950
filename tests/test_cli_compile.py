"""`pypto compile`: output, configuration, flags, dumps, and the exit code of each kind of failure."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import pypto.language as pl
from pypto_core.cli import main

from .test_pipeline_toys import support
from .test_pipeline_toys.support import EXAMPLE, TOY_SOURCE

toy_plugin = support.toy_plugin  # shared fixture


@pytest.fixture
def work(tmp_path, monkeypatch, toy_plugin) -> Path:
    """A working directory holding the toy program, with the toy passes registered."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "toy.py").write_text(TOY_SOURCE)
    return tmp_path


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# -- success --------------------------------------------------------------------------------------
def test_default_pipeline_on_the_example(capsys, toy_plugin, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no pypto.toml here: built-in defaults
    code, out, err = run(capsys, "compile", str(EXAMPLE))
    assert (code, err) == (0, "")
    # planned: parameters carry their DDR MemRefs (docs/memory_planning.md)
    assert 'def main_incore_0(y__ssa_v0: pl.Tensor[[64], pl.FP32, pl.MemRef("mem_ddr_0", ' in out
    assert "@pl.function(type=pl.FunctionType.Orchestration" in out
    assert pl.parse(out) is not None


def test_a_file_with_one_function_compiles_as_a_program_of_one(capsys, work):
    (work / "fn.py").write_text("import pypto.language as pl\n\n\n@pl.function\n"
                                "def f(x: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:\n"
                                "    y = x + 1\n    y = y + 1\n    return y\n")
    code, out, err = run(capsys, "compile", "fn.py", "--pipeline", "convert_to_ssa")
    assert (code, err) == (0, "")
    assert "@pl.program" in out and "y__ssa_v1: pl.Scalar[pl.INDEX] = y__ssa_v0 + 1" in out


def test_pypto_toml_in_the_current_directory_names_passes_and_options(capsys, work):
    (work / "pypto.toml").write_text('[pipeline]\npasses = ["toy_mark{times=2}"]\n[passes.toy_mark]\nlabel = "k"\n')
    code, out, _ = run(capsys, "compile", "toy.py")
    assert code == 0
    assert 'pl.func_attr({"toy_mark": "kk"})' in out


def test_config_flag_and_output_file(capsys, work):
    (work / "other.toml").write_text('[pipeline]\npasses = ["toy_mark"]\n')
    code, out, _ = run(capsys, "compile", "toy.py", "--config", "other.toml", "-o", "out.py")
    assert (code, out) == (0, "")
    assert 'pl.func_attr({"toy_mark": "on"})' in (work / "out.py").read_text()


def test_pipeline_flag_overrides_the_file(capsys, work):
    (work / "pypto.toml").write_text('[pipeline]\npasses = ["toy_reject"]\n')
    code, out, _ = run(capsys, "compile", "toy.py", "--pipeline", "toy_mark{label=cli}")
    assert code == 0 and 'pl.func_attr({"toy_mark": "cli"})' in out


def test_backend_flag_reaches_the_passes(capsys, work):
    from .test_pipeline_toys.toy_passes import ToyBackendProbe

    ToyBackendProbe.seen.clear()
    assert run(capsys, "compile", "toy.py", "--pipeline", "toy_backend_probe", "--backend", "Ascend950")[0] == 0
    assert run(capsys, "compile", "toy.py", "--pipeline", "toy_backend_probe")[0] == 0
    assert ToyBackendProbe.seen == ["Ascend950", "Ascend910B"]


def test_dump_dir_gets_a_file_before_and_after_every_pass(capsys, work):
    (work / "dumps").mkdir()
    (work / "dumps" / "07_notes.py").write_text("a user's file that looks like a dump")
    code, _, _ = run(capsys, "compile", "toy.py", "--pipeline", "toy_mark,toy_unmark,toy_mark", "--dump-dir", "dumps")
    assert code == 0
    code, _, _ = run(capsys, "compile", "toy.py", "--pipeline", "toy_mark,toy_unmark", "--dump-dir", "dumps")
    assert code == 0
    files = sorted(p.name for p in (work / "dumps").iterdir() if not p.name.startswith("."))
    # The first run's 03_toy_mark.py is gone; the user's file is never touched.
    assert files == ["00_input.py", "01_toy_mark.py", "02_toy_unmark.py", "07_notes.py"]
    after_mark = (work / "dumps" / "01_toy_mark.py").read_text()
    assert '"toy_mark": "on"' in after_mark
    assert "toy_mark" not in (work / "dumps" / "02_toy_unmark.py").read_text()
    pl.parse(after_mark)  # a dump is a compilable program


@pytest.mark.parametrize("kind", ["file", "under_a_file", "unwritable"])
def test_a_bad_dump_dir_is_a_user_error_before_any_pass(capsys, work, kind):
    target = work / "target"
    if kind == "file":
        target.write_text("not a directory")
    elif kind == "under_a_file":
        (work / "plain").write_text("x")
        target = work / "plain" / "sub"
    else:
        target.mkdir()
        target.chmod(0o500)
        if os.access(target, os.W_OK):  # root ignores permissions
            pytest.skip("running as a user who can write anywhere")
    code, out, err = run(capsys, "compile", "toy.py", "--pipeline", "toy_mark", "--dump-dir", str(target))
    assert code == 1 and f"--dump-dir {target}" in err and "internal error" not in err


def test_print_after_flags(capsys, work):
    _, _, err = run(capsys, "compile", "toy.py", "--pipeline", "toy_mark,toy_needs_mark", "--print-after-all")
    assert err.count("# ---- IR after") == 2
    _, _, err = run(capsys, "compile", "toy.py", "--pipeline", "toy_mark,toy_needs_mark",
                    "--print-after", "toy_needs_mark")
    assert err.count("# ---- IR after") == 1 and "# ---- IR after toy_needs_mark (ToyNeedsMark) ----" in err
    _, _, err = run(capsys, "compile", "toy.py", "--pipeline", "toy_mark,toy_needs_mark", "--print-after-change")
    assert err.count("# ---- IR after") == 1 and "# ---- IR after toy_mark (ToyMark) ----" in err


def test_timing_table_goes_to_stderr(capsys, work):
    code, out, err = run(capsys, "compile", "toy.py", "--pipeline", "toy_mark", "--timing")
    assert code == 0 and "Pass timing" in err and "Pass timing" not in out


def test_verify_none_lets_a_lying_pass_through(capsys, work):
    assert run(capsys, "compile", "toy.py", "--pipeline", "toy_liar", "--verify", "none")[0] == 0


# -- rejected: exit 1 ----------------------------------------------------------------------------------------
def test_a_parse_error_is_located_without_a_traceback(capsys, work):
    (work / "bad.py").write_text(TOY_SOURCE.replace("pl.add(y, 2.0)", "pl.ad(y, 2.0)"))
    code, _, err = run(capsys, "compile", "bad.py", "--pipeline", "toy_mark")
    assert code == 1
    assert "pypto: error: Unknown pl operation: ad" in err
    assert "--> bad.py:9:" in err and "^" in err
    assert "Traceback" not in err


def test_a_config_error(capsys, work):
    (work / "pypto.toml").write_text('verify = "always"\n')
    code, _, err = run(capsys, "compile", "toy.py")
    assert code == 1 and "pypto.toml:1: verify: 'always' is not one of" in err


def test_a_pipeline_whose_properties_cannot_hold(capsys, work):
    code, _, err = run(capsys, "compile", "toy.py", "--pipeline", "toy_needs_mark")
    assert code == 1 and "pass 'toy_needs_mark' (ToyNeedsMark, step 1) requires property ToyMarked" in err


def test_a_pass_rejecting_the_program(capsys, work):
    code, _, err = run(capsys, "compile", "toy.py", "--pipeline", "toy_reject")
    assert code == 1 and "pypto: error: toy_reject: this program uses a feature" in err


def test_an_input_that_breaks_a_structural_property(capsys, work):
    # A loop variable used after its loop (a value defined in a loop body and used after it is well formed
    # before ConvertToSSA, which carries it: docs/passes/convert_to_ssa.md).
    (work / "loose.py").write_text(TOY_SOURCE.replace(
        "        z = pl.add(y, 2.0)\n",
        "        for i in pl.range(2):\n            z = pl.add(y, 2.0)\n        k = i + 1\n"))
    code, _, err = run(capsys, "compile", "loose.py", "--pipeline", "toy_mark")
    assert code == 1
    assert "the input program is not well formed" in err
    assert "variable 'i' is used where its definition does not dominate the use" in err
    assert "Location: loose.py:" in err


def test_a_missing_input_file(capsys, work):
    code, _, err = run(capsys, "compile", "nowhere.py", "--pipeline", "toy_mark")
    assert code == 1 and "nowhere.py: No such file or directory" in err


# -- usage: exit 2 ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("argv", [["compile"], ["compile", "toy.py", "--verify", "always"], ["frobnicate"],
                                  ["compile", "toy.py", "-p", "toy_passes"]])
def test_usage_errors(capsys, work, argv):
    code, _, err = run(capsys, *argv)
    assert code == 2 and "usage" in err.lower()


# -- internal: exit 3 ----------------------------------------------------------------------------------------------
def test_a_crashing_pass_is_an_internal_error_naming_it(capsys, work):
    code, _, err = run(capsys, "compile", "toy.py", "--pipeline", "toy_crash")
    assert code == 3
    assert "pypto: internal error: pass 'toy_crash' (ToyCrash, from plugin 'toy_passes'" in err
    assert "please report it" in err and "Traceback" not in err


def test_a_pass_breaking_the_ir_is_an_internal_error_naming_it(capsys, work):
    code, _, err = run(capsys, "compile", "toy.py", "--pipeline", "toy_liar,toy_needs_mark")
    assert code == 3 and "IR verification failed after pass 'toy_liar'" in err


def test_traceback_on_request(capsys, work, monkeypatch):
    monkeypatch.setenv("PYPTO_TRACEBACK", "1")
    code, _, err = run(capsys, "compile", "toy.py", "--pipeline", "toy_crash")
    assert code == 3 and "Traceback" in err and "KeyError" in err


# -- the installed console script ------------------------------------------------------------------------------------
def _pypto(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    script = Path(sys.executable).with_name("pypto")
    env = {k: v for k, v in os.environ.items() if k != "PYPTO_DISABLE_PLUGINS"}
    return subprocess.run([str(script), *argv], cwd=cwd, capture_output=True, text=True, env=env, timeout=120)


def test_console_script_compiles_the_example(tmp_path):
    result = _pypto("compile", str(EXAMPLE), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "main_incore_0" in result.stdout


def test_console_script_exit_code_for_a_bad_program(tmp_path):
    (tmp_path / "bad.py").write_text("import pypto.language as pl\n\n@pl.program\nclass P:\n    x = (\n")
    result = _pypto("compile", "bad.py", cwd=tmp_path)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr and "pypto: error:" in result.stderr


def test_a_file_that_is_not_utf8_is_rejected_naming_it(tmp_path, capsys):
    from pypto_core import cli

    bad = tmp_path / "bin.py"
    bad.write_bytes(b"\xff\xfe")
    assert cli.main(["compile", str(bad)]) == 1
    assert f"{bad}: not UTF-8 text" in capsys.readouterr().err

"""Rough edges a new user would hit: `check` and `compile` agree on configurations, check-run
failures name the pass and its plugin, TOML errors are located and worded for users, `--version`,
`list --json`, `COLUMNS`, pass descriptions, and located `__`-name errors and verification reports."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pypto_core.cli import main
from pypto_core.config import ConfigError, key_lines, parse_config_text, resolve_config
from pypto_core.passes.verifier_registry import PropertyVerifierRegistry, error

from .default_preset import default_passes
from .test_pipeline_toys.support import TOY_SOURCE
from .test_pipeline_toys.toy_failing import failing_plugin  # noqa: F401 - a fixture

toy_plugin = failing_plugin  # noqa: F811 - toy_passes and toy_failing


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("COLUMNS", raising=False)
    (tmp_path / "toy.py").write_text(TOY_SOURCE)
    return tmp_path


def config_error(text: str) -> str:
    with pytest.raises(ConfigError) as info:
        resolve_config(parse_config_text(text, "pypto.toml"))
    return str(info.value)


# -- `pypto check` accepts exactly what `pypto compile` accepts --------------------------------------------
AGREEMENT = {
    "unknown property of run_verifier": (
        '[pipeline]\npasses = ["convert_to_ssa", "run_verifier"]\n[passes.run_verifier]\n'
        'properties = ["SSAForm", "SSAFrom"]\n',
        "pypto.toml:4: passes.run_verifier: invalid options for pass run_verifier: properties[1]: unknown IR "
        "property 'SSAFrom'; did you mean 'SSAForm'?"),
    "ill-typed option of a pass not in the pipeline": (
        '[pipeline]\npasses = ["convert_to_ssa"]\n[passes.lower_auto_vector_split]\nsynthesize_regions = "maybe"\n',
        "pypto.toml:4: passes.lower_auto_vector_split: invalid options for pass lower_auto_vector_split: "
        "synthesize_regions: "),
    "unknown option of a pass not in the pipeline": (
        '[pipeline]\npasses = ["convert_to_ssa"]\n[passes.outline_incore_scopes]\nopt = 1\n',
        "pypto.toml:4: passes.outline_incore_scopes: pass 'outline_incore_scopes' has no option 'opt'"),
    "unknown pass table": (
        '[pipeline]\npasses = ["convert_to_ssa"]\n[passes.convert_to_sa]\n',
        "pypto.toml:3: passes.convert_to_sa: unknown pass 'convert_to_sa'; did you mean 'convert_to_ssa'?"),
}


@pytest.mark.parametrize("case", sorted(AGREEMENT))
def test_check_rejects_what_compile_rejects_with_the_same_message(capsys, work, toy_plugin, case):
    text, message = AGREEMENT[case]
    (work / "pypto.toml").write_text(text)
    check_code, check_out, check_err = run(capsys, "check")
    compile_code, _, compile_err = run(capsys, "compile", "toy.py")
    assert (check_code, compile_code) == (1, 1), check_out
    assert "OK" not in check_out
    assert message in check_err and check_err == compile_err


def test_an_inline_run_verifier_property_is_checked_too(capsys, work, toy_plugin):
    code, _, err = run(capsys, "check", "--pipeline", 'convert_to_ssa,run_verifier{properties=["SSAFrom"]}')
    assert code == 1
    assert "--pipeline: invalid options for pass run_verifier: properties[0]: unknown IR property 'SSAFrom'" in err


def test_valid_option_tables_of_passes_outside_the_pipeline_still_pass(capsys, work, toy_plugin):
    (work / "pypto.toml").write_text('[pipeline]\npasses = ["convert_to_ssa", "run_verifier"]\n'
                                     '[passes.run_verifier]\nproperties = ["SSAForm"]\n'
                                     "[passes.lower_auto_vector_split]\nsynthesize_regions = true\n")
    code, out, _ = run(capsys, "check")
    assert code == 0 and "OK: pypto.toml" in out
    assert run(capsys, "compile", "toy.py")[0] == 0


# -- check-run and internal errors name the pass's pipeline name, class and plugin ---------------------------
def test_a_check_run_mismatch_names_the_pipeline_name_the_class_and_the_plugin(capsys, work, toy_plugin):
    code, _, err = run(capsys, "compile", "toy.py", "--pipeline", "toy_mark,toy_miscompile", "--verify",
                       "check-run", "--no-reproducer")
    assert code == 3
    assert ("check-run: pass 'toy_miscompile' (ToyMiscompile, from plugin 'toy_failing' / <registered in process>) "
            "changed what the program computes") in err
    assert "the plugin named above" not in err
    assert "in plugin 'toy_failing' (<registered in process>), which provides pass 'toy_miscompile'" in err


def test_a_crash_names_the_plugin_in_the_hint(capsys, work, toy_plugin):
    code, _, err = run(capsys, "compile", "toy.py", "--pipeline", "toy_crash", "--no-reproducer")
    assert code == 3 and "the plugin named above" not in err
    assert "this is a bug in pypto or in plugin 'toy_passes' (<registered in process>), which provides pass " \
           "'toy_crash'" in err


# -- TOML errors: the right line, file:line:col for syntax, users' words, the offending value -----------------
def test_a_bad_entry_of_a_multi_line_array_is_reported_at_its_line(toy_plugin):
    assert config_error('[pipeline]\npasses = [\n  "convert_to_ssa",  # first\n  "bogus",\n]\n').startswith(
        "pypto.toml:4: pipeline.passes: unknown pass or preset 'bogus'")
    assert config_error('[dump]\nprint_after = [\n  "convert_to_ssa",\n  "nope",\n]\n').startswith(
        "pypto.toml:4: dump.print_after: unknown pass 'nope'")
    assert config_error('[plugins]\ndisable = [\n  "ops_tile",\n  "no_such_plugin",\n]\n').startswith(
        "pypto.toml:4: plugins.disable: no plugin named 'no_such_plugin'")
    assert config_error('[passes.run_verifier]\nproperties = [\n  "SSAForm",\n  ["x"], "SSAFrom",\n]\n').startswith(
        "pypto.toml:4: passes.run_verifier: invalid options for pass run_verifier: properties[1]: ")


def test_an_ill_typed_array_entry_is_located_and_shows_the_value():
    with pytest.raises(ConfigError) as info:
        parse_config_text('[dump]\nprint_after = [\n  "a",\n  3,\n]\n', "pypto.toml")
    assert str(info.value) == "pypto.toml:4: dump.print_after[1]: Input should be a valid string (got 3)"


def test_a_bad_pass_option_is_reported_at_the_option_s_line(toy_plugin):
    text = '[pipeline]\npasses = ["toy_mark"]\n\n[passes.toy_mark]\nlabel = "x"\ntimes = "many"\n'
    assert config_error(text).startswith("pypto.toml:6: passes.toy_mark: invalid options for pass toy_mark: times: ")
    assert "(got 'many')" in config_error(text)
    assert config_error('[passes.toy_mark]\nlabel = "x"\nlabell = "y"\n') == (
        "pypto.toml:3: passes.toy_mark: pass 'toy_mark' has no option 'labell'; did you mean 'label'?")
    # an inline option is reported at its pipeline entry
    assert config_error('[pipeline]\npasses = [\n  "toy_mark",\n  "toy_needs_mark{x=1}",\n]\n').startswith(
        "pypto.toml:4: pipeline.passes: pass 'toy_needs_mark' has no option 'x'")


def test_a_syntax_error_is_located_with_a_caret():
    with pytest.raises(ConfigError) as info:
        parse_config_text('[pipeline]\npasses = [\n  "convert_to_ssa",\n  "bogus\n]\n', "pypto.toml")
    lines = str(info.value).splitlines()
    assert lines[0] == "pypto.toml: not valid TOML: illegal character '\\n'"
    assert lines[1] == "  --> pypto.toml:4:9"
    assert lines[3] == '4 |   "bogus'
    assert lines[4] == "  |         ^"


def test_no_pydantic_wording_and_the_value_is_shown():
    with pytest.raises(ConfigError) as info:
        parse_config_text('verify = 3\n[dump]\ntiming = "yes"\nprint_changed = "x"\n'
                          '[pipeline]\npreset = "default"\npasses = ["convert_to_ssa"]\n', "pypto.toml")
    text = str(info.value)
    assert "Value error" not in text and "literal[" not in text and ".bool" not in text
    assert text.splitlines() == [
        "pypto.toml:1: verify: 3 is not one of none, basic, roundtrip, check-run",
        "pypto.toml:3: dump.timing: Input should be a valid boolean (got 'yes')",
        "pypto.toml:4: dump.print_changed: expected true or false, or one of full, diff, got 'x'",
        "pypto.toml:5: pipeline: give either 'preset' or 'passes', not both",
    ]


def test_many_errors_still_scan_the_file_once():
    text = "".join(f"unknown_{i} = {i}\n" for i in range(300)) + "[dump]\nprint_after = [\n" + \
        "".join(f"  {i},\n" for i in range(300)) + "]\n"
    before = key_lines.cache_info().misses
    with pytest.raises(ConfigError) as info:
        parse_config_text(text, "pypto.toml")
    assert key_lines.cache_info().misses == before + 1
    lines = str(info.value).splitlines()
    assert len(lines) == 600 and lines[-1] == "pypto.toml:602: dump.print_after[299]: Input should be a valid string " \
                                              "(got 299)"


# -- --version, list --json, COLUMNS, descriptions ----------------------------------------------------------
def test_version(capsys):
    from importlib import metadata

    code, out, _ = run(capsys, "--version")
    lines = out.splitlines()
    # The version first (scripts read one line), then the loaded plugins with their distributions.
    assert code == 0 and lines[0] == f"pypto {metadata.version('pypto')}"
    assert lines[1] == "plugins:"
    assert f"  ops_tile (pypto {metadata.version('pypto')})" in lines


def test_python_dash_m_pypto_is_the_command():
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "pypto", "--version"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.startswith("pypto ")


def test_version_names_a_plugin_that_failed_to_load(capsys):
    import types

    from pypto_core.plugins.host import register_in_process_plugin, reload_plugins

    module = types.ModuleType("broken_at_load")
    exec("from pypto.plugin import hookimpl\n\n@hookimpl\ndef pypto_register_ops(registry):\n"
         "    raise RuntimeError('no')\n", module.__dict__)
    host = register_in_process_plugin("broken_at_load", module)
    try:
        assert [f.name for f in host.failures] == ["broken_at_load"]
        code, out, _ = run(capsys, "--version")
        assert code == 0 and "  broken_at_load (<registered in process>): FAILED to load" in out
    finally:
        reload_plugins(disabled=[], extra=[])


def test_list_json_holds_every_field(capsys, work, toy_plugin):
    code, out, _ = run(capsys, "list", "passes", "--json")
    assert code == 0
    records = {r["pass"]: r for r in json.loads(out)}
    toy = records["toy_mark"]
    assert (toy["name"], toy["plugin"], toy["distribution"]) == ("ToyMark", "toy_passes", "<registered in process>")
    assert toy["produces"] == ["ToyMarked"]
    assert {"name": "times", "type": "int", "default": 1, "description": ""} in toy["options"]
    assert records["convert_to_ssa"]["description"].startswith("Static single assignment")
    for what in ("pipelines", "ops", "backends", "plugins", "properties"):
        code, out, _ = run(capsys, "list", what, "--json")
        assert code == 0 and isinstance(json.loads(out), list) and json.loads(out)
    backends = {r["backend"]: r for r in json.loads(run(capsys, "list", "backends", "--json")[1])}
    assert backends["Ascend910B"]["default"] is True and backends["Ascend910B"]["core_group"]["aiv_lanes"] == 2


def cell_text(out: str, first_cell: str, column: int) -> str:
    """The words of one cell of a table row, its continuation lines included."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"│ {first_cell} "))
    words = []
    for i, line in enumerate(lines[start:]):
        cells = line.split("│")
        if len(cells) < 3 or (i and cells[1].strip()):
            break
        words.append(cells[column].strip())
    return " ".join(w for w in words if w)


def test_list_passes_shows_descriptions(capsys, work, toy_plugin):
    code, out, _ = run(capsys, "list", "passes")
    assert code == 0
    assert cell_text(out, "convert_to_ssa", 2).startswith("ConvertToSSA Static single assignment: versioned names")
    assert cell_text(out, "toy_mark", 2) == "ToyMark"  # no description, no docstring


@pytest.mark.parametrize("columns", [90, 140])
def test_tables_take_the_width_of_columns_when_piped(capsys, work, toy_plugin, monkeypatch, columns):
    monkeypatch.setenv("COLUMNS", str(columns))
    code, out, _ = run(capsys, "list", "passes")
    assert code == 0 and max(len(line) for line in out.splitlines()) == columns  # wider without the limit
    code, out, _ = run(capsys, "list", "backends")
    assert code == 0 and max(len(line) for line in out.splitlines()) <= columns


def test_without_columns_a_pipe_gets_200(capsys, work, toy_plugin):
    out = run(capsys, "list", "passes")[1]
    assert max(len(line) for line in out.splitlines()) == 200


# -- located `__`-name errors and verification reports -------------------------------------------------------
def test_a_reserved_name_error_is_located_with_a_caret(capsys, work, toy_plugin):
    (work / "dunder.py").write_text("import pypto.language as pl\n\n\n@pl.function\n"
                                    "def f(a: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:\n"
                                    "    my__x = a + 1\n    return my__x\n")
    code, _, err = run(capsys, "compile", "dunder.py", "--pipeline", "convert_to_ssa")
    assert code == 1
    lines = err.splitlines()
    assert lines[0].startswith("pypto: error: variable name 'my__x' uses the reserved delimiter '__': ")
    assert "(e.g. 'my_x')" in lines[0]
    assert lines[1:] == ["  --> dunder.py:6:5", "  |", "6 |     my__x = a + 1", "  |     ^^^^^"]


def test_a_reserved_parameter_name_points_at_the_parameter(capsys, work, toy_plugin):
    (work / "param.py").write_text("import pypto.language as pl\n\n\n@pl.function\n"
                                   "def f(a__b: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:\n    return a__b\n")
    code, _, err = run(capsys, "compile", "param.py", "--pipeline", "convert_to_ssa")
    assert code == 1 and "  --> param.py:5:7\n" in err and "\n  |       ^^^^\n" in err


def test_the_verification_report_shows_where_with_a_caret(capsys, work, toy_plugin):
    (work / "loose.py").write_text(TOY_SOURCE.replace(
        "        z = pl.add(y, 2.0)\n",
        "        for i in pl.range(2):\n            z = pl.add(y, 2.0)\n        k = i + 1\n"))
    code, _, err = run(capsys, "compile", "loose.py", "--pipeline", "toy_mark")
    assert code == 1
    assert "  Location: loose.py:11:9\n" in err  # PyPTO's report layout is kept
    located = err[err.index("Source locations:"):].splitlines()
    assert located[:5] == ["Source locations:", "[1] ERROR - UseAfterDef", "  --> loose.py:11:9", "   |",
                           "11 |         k = i + 1"]
    assert located[5].startswith("   |         ^")


def test_a_report_without_spans_is_pyptos_layout_exactly():
    report = PropertyVerifierRegistry.generate_report([error("SSAForm", "x is assigned twice")])
    assert report == ("IR Verification Report\n======================\nTotal diagnostics: 1 (1 errors, 0 warnings)\n\n"
                      "[1] ERROR - SSAForm\n  Message: x is assigned twice\n  Location: <unknown>\n  Error Code: 0\n\n"
                      "Status: FAILED (1 error(s) found)")


def test_pypto_run_shows_its_progress_when_asked(capsys):
    example = str(Path(__file__).resolve().parents[1] / "examples" / "mixed_matmul_bias.py")
    code, _, err = run(capsys, "run", "--progress", example)
    assert code == 0
    lines = err.splitlines()
    stages = [line for line in lines if line.startswith("pypto run: ") and not line.endswith(" ...")]
    passes = default_passes()
    n = len(passes)
    assert [s.rsplit(": ", 1)[0] for s in stages] == [f"pypto run: compiling with {n} passes",
                                                      "pypto run: running main as written",
                                                      "pypto run: running main compiled"]
    assert all(s.endswith(" s") for s in stages)
    # The compile stage shows each pass between its start and end lines.
    start, end = lines.index(f"pypto run: compiling with {n} passes ..."), lines.index(stages[0])
    assert [line for line in lines[start + 1:end] if line.startswith("pypto: [")][:2] == [
        f"pypto: [1/{n}] {passes[0]}", f"pypto: [2/{n}] {passes[1]}"]
    code, _, err = run(capsys, "run", "--no-progress", example)
    assert code == 0 and "pypto run: " not in err and "pypto: [" not in err

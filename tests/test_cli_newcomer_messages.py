"""Messages a newcomer reads (docs/README.md, the command line): a mistyped pipeline name is matched against the
passes and the presets (both are accepted there), an empty `--pipeline ''` parses, verifies and prints the
program like `mlir-opt FILE`, and a `--filter-func` pattern matching no function is a warning naming the
functions there were."""

from __future__ import annotations

from pathlib import Path

import pytest

from pypto_core.cli import main

EXAMPLE = str(Path(__file__).resolve().parents[1] / "examples" / "basic.py")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_a_mistyped_preset_in_the_pipeline_is_suggested(capsys):
    code, _, err = run(capsys, "compile", EXAMPLE, "--pipeline", "defualt")
    assert code != 0
    assert "--pipeline: unknown pass or preset 'defualt'; did you mean 'default'?" in err


def test_a_mistyped_pass_in_the_pipeline_is_suggested(capsys):
    code, _, err = run(capsys, "compile", EXAMPLE, "--pipeline", "convert_to_ssa,outline_incore_scope")
    assert code != 0
    assert "unknown pass or preset 'outline_incore_scope'; did you mean 'outline_incore_scopes'?" in err


def test_a_name_like_nothing_lists_the_passes_and_the_presets(capsys):
    code, _, err = run(capsys, "compile", EXAMPLE, "--pipeline", "qqqqqqqqqqqqqqq")
    assert code != 0
    assert "(known passes: " in err and "; presets: " in err and "default" in err.split("presets:")[1]


def test_a_pass_with_options_is_never_taken_for_a_preset(capsys):
    code, _, err = run(capsys, "compile", EXAMPLE, "--pipeline", "defualt{x=1}")
    assert code != 0
    assert "unknown pass 'defualt'" in err and "preset" not in err.split("unknown pass")[1].split("'")[0]


def test_an_empty_pipeline_parses_verifies_and_prints_the_program(capsys):
    code, out, err = run(capsys, "compile", EXAMPLE, "--pipeline", "")
    assert code == 0, err
    assert out.startswith("# pypto.program: Basic")
    assert "pl.tensor.adds(x, 1.0)" in out  # as written: no pass ran


def test_an_empty_pipeline_still_verifies_the_input(capsys, monkeypatch):
    from pypto_core.passes.instruments import pipeline_checks

    seen: list[int] = []
    real = pipeline_checks.PipelineVerification.enter

    def enter(self, passes, program):
        seen.append(len(passes))
        return real(self, passes, program)

    monkeypatch.setattr(pipeline_checks.PipelineVerification, "enter", enter)
    code, _, err = run(capsys, "compile", EXAMPLE, "--pipeline", "")
    assert code == 0, err
    assert seen == [0]  # the input's structural properties were checked with no pass to run


def test_a_filter_func_matching_nothing_warns_and_lists_the_functions(capsys):
    code, _, err = run(capsys, "compile", EXAMPLE, "--print-after-all", "--filter-func", "nosuch")
    assert code == 0
    assert "pypto: warning: --filter-func: no function matched 'nosuch' (functions: main, main_incore_0)" in err


def test_a_misspelt_filter_func_gets_a_did_you_mean(capsys):
    code, _, err = run(capsys, "compile", EXAMPLE, "--print-after-all", "--filter-func", "mian")
    assert code == 0
    assert "no function matched 'mian'; did you mean 'main'?" in err


def test_a_filter_func_that_matches_gives_no_warning(capsys):
    code, _, err = run(capsys, "compile", EXAMPLE, "--print-after-all", "--filter-func", "main_incore*")
    assert code == 0
    assert "warning" not in err and "IR after" in err


@pytest.mark.parametrize("written, suggested", [("pl.FP23", "pl.FP32"), ("pl.BF61", "pl.BF16"), ("pl.INT23", "pl.INT32")])
def test_a_mistyped_dtype_gets_a_did_you_mean(capsys, tmp_path, written, suggested):
    src = tmp_path / "dt.py"
    src.write_text(Path(EXAMPLE).read_text().replace("pl.Tensor[[64], pl.FP32]) ->", f"pl.Tensor[[64], {written}]) ->"))
    code, _, err = run(capsys, "compile", str(src))
    assert code == 1
    assert f"expected a dtype such as pl.FP32, got '{written}'" in err and "hint: did you mean" in err
    assert suggested in err.split("hint: did you mean")[1]

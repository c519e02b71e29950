"""LLVM/MLIR-style printing of `pypto compile`: --print-changed[=diff], --print-before[-all], --filter-func,
and the same from pypto.toml's [dump] table."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from pypto_core.cli import main
from pypto_core.passes.instruments import PrintAfterInstrument
from pypto_core.passes.manager import PassManager

from .test_pipeline_toys import support
from .test_pipeline_toys.support import TOY_SOURCE
from .test_pipeline_toys.toy_passes import ToyMark, ToyNeedsMark

toy_plugin = support.toy_plugin

TWO_FUNCTIONS = '''import pypto.language as pl


@pl.program
class Two:
    @pl.function
    def helper(self, a: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        b = pl.add(a, 1.0)
        return b

    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        y = self.helper(x)
        return y
'''


@pytest.fixture
def work(tmp_path, monkeypatch, toy_plugin) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "toy.py").write_text(TOY_SOURCE)
    (tmp_path / "two.py").write_text(TWO_FUNCTIONS)
    return tmp_path


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_print_changed_diff_shows_a_unified_diff_after_each_changing_pass(capsys, work):
    code, out, err = run(capsys, "compile", "toy.py", "--pipeline", "toy_mark,toy_needs_mark,toy_unmark",
                         "--print-changed=diff")
    assert code == 0 and "pl.func_attr" not in out
    assert err.count("# ---- IR diff after") == 2  # toy_needs_mark changed nothing
    assert "# ---- IR diff after toy_mark (ToyMark) ----\n--- before toy_mark\n+++ after toy_mark\n@@ " in err
    assert '+        pl.func_attr({"toy_mark": "on"})\n' in err
    assert '-        pl.func_attr({"toy_mark": "on"})\n' in err  # toy_unmark removes it again
    assert "toy_needs_mark" not in err
    # context lines only, not the whole program
    assert "@pl.program" not in err.split("# ---- IR diff after toy_unmark")[0].split("@@")[0]


def test_plain_print_changed_prints_the_whole_program_like_print_after_change(capsys, work):
    argv = ("compile", "toy.py", "--pipeline", "toy_mark,toy_needs_mark")
    _, _, changed = run(capsys, *argv, "--print-changed")
    _, _, after_change = run(capsys, *argv, "--print-after-change")
    assert changed == after_change
    assert changed.count("# ---- IR after") == 1 and "# ---- IR after toy_mark (ToyMark) ----" in changed
    assert "class Toy:" in changed


def test_print_changed_with_print_after_limits_it_to_those_passes(capsys, work):
    _, _, err = run(capsys, "compile", "toy.py", "--pipeline", "toy_mark,toy_unmark", "--print-changed=diff",
                    "--print-after", "toy_unmark")
    assert err.count("# ---- IR diff after") == 1 and "IR diff after toy_unmark (ToyUnmark)" in err


def test_print_before_and_print_before_all(capsys, work):
    _, _, err = run(capsys, "compile", "toy.py", "--pipeline", "toy_mark,toy_needs_mark", "--print-before",
                    "toy_needs_mark")
    assert err.count("# ---- IR before") == 1 and "# ---- IR before toy_needs_mark (ToyNeedsMark) ----" in err
    assert 'pl.func_attr({"toy_mark": "on"})' in err  # the input of toy_needs_mark: after toy_mark
    _, _, err = run(capsys, "compile", "toy.py", "--pipeline", "toy_mark,toy_needs_mark", "--print-before-all")
    assert err.count("# ---- IR before") == 2
    first = err.split("# ---- IR before toy_needs_mark")[0]
    assert "# ---- IR before toy_mark (ToyMark) ----" in first and "pl.func_attr" not in first
    _, _, err = run(capsys, "compile", "toy.py", "--pipeline", "toy_mark", "--print-before", "ToyMark",
                    "--print-after-all")
    assert err.index("# ---- IR before toy_mark") < err.index("# ---- IR after toy_mark")


def test_an_unknown_print_before_name_is_rejected(capsys, work):
    code, _, err = run(capsys, "compile", "toy.py", "--pipeline", "toy_mark", "--print-before", "toy_mrak")
    assert code == 1 and "--print-before: unknown pass 'toy_mrak'; did you mean 'toy_mark'?" in err


@pytest.mark.parametrize("flag", ["--print-after-all", "--print-before-all", "--print-changed",
                                  "--print-changed=diff"])
def test_filter_func_prints_only_that_function(capsys, work, flag):
    code, out, err = run(capsys, "compile", "two.py", "--pipeline", "toy_mark", flag, "--filter-func", "helper")
    assert code == 0 and "def main" in out
    assert "def helper" in err and "def main" not in err


def test_filter_func_takes_patterns_and_prints_no_ir_when_none_matches(capsys, work):
    _, _, err = run(capsys, "compile", "two.py", "--pipeline", "toy_mark", "--print-after-all",
                    "--filter-func", "ma*")
    assert "def main" in err and "def helper" not in err
    _, _, err = run(capsys, "compile", "two.py", "--pipeline", "toy_mark", "--print-after-all",
                    "--filter-func", "nothing_like_this")
    assert "IR after" not in err  # no IR: only the warning that the pattern matched nothing
    assert err.startswith("pypto: warning: --filter-func: no function matched 'nothing_like_this' (functions: ")


def test_the_dump_table_sets_the_same_options(capsys, work):
    (work / "pypto.toml").write_text('[pipeline]\npasses = ["toy_mark", "toy_needs_mark"]\n'
                                     '[dump]\nprint_changed = "diff"\nprint_before = "toy_needs_mark"\n'
                                     'filter_func = ["helper"]\n')
    code, _, err = run(capsys, "compile", "two.py")
    assert code == 0
    assert err.count("# ---- IR diff after") == 1 and err.count("# ---- IR before") == 1
    assert "def helper" in err and "def main" not in err
    (work / "pypto.toml").write_text('[dump]\nprint_changed = true\nprint_before_all = true\n')
    code, _, err = run(capsys, "compile", "toy.py", "--pipeline", "toy_mark")
    assert code == 0 and "# ---- IR after toy_mark" in err and "# ---- IR before toy_mark" in err


def test_a_bad_print_changed_value_in_the_file_is_a_config_error(capsys, work):
    (work / "pypto.toml").write_text('[dump]\nprint_changed = "difff"\n')
    code, _, err = run(capsys, "compile", "toy.py", "--pipeline", "toy_mark")
    assert code == 1 and "pypto.toml:2" in err and "print_changed" in err
    code, _, err = run(capsys, "compile", "toy.py", "--pipeline", "toy_mark", "--print-changed=patch")
    assert code == 2  # argparse: not one of full, diff


def test_the_instrument_directly(toy_plugin):
    stream = io.StringIO()
    instrument = PrintAfterInstrument(stream=stream, changed="diff", before_names=["ToyMark"],
                                      filter_funcs=["main"])
    PassManager([ToyMark(), ToyNeedsMark()], instruments=[instrument]).run(support.toy_program())
    text = stream.getvalue()
    assert text.count("# ---- IR before") == 1 and text.count("# ---- IR diff after") == 1
    with pytest.raises(ValueError, match="print-changed"):
        PrintAfterInstrument(changed="patch")  # type: ignore[arg-type]


class _Terminal:
    """A stream that says it is a terminal."""

    def __init__(self) -> None:
        self.parts: list[str] = []

    def isatty(self) -> bool:
        return True

    def write(self, text: str) -> None:
        self.parts.append(text)

    def flush(self) -> None:
        pass


@pytest.mark.parametrize("no_color, coloured", [("", True), ("1", False)])
def test_a_diff_is_coloured_on_a_terminal_unless_no_color(monkeypatch, no_color, coloured):
    import pypto.language as pl
    from pypto import passes
    from pypto_core.passes.context import PassContext
    from pypto_core.passes.instruments.print_ir import PrintAfterInstrument

    monkeypatch.setenv("NO_COLOR", no_color)
    terminal = _Terminal()
    program = pl.parse(open("examples/basic.py").read() if False else BASIC)
    with PassContext([PrintAfterInstrument(stream=terminal, changed="diff")]):
        passes.convert_to_ssa()(program)
    text = "".join(terminal.parts)
    assert "+++ after" in text
    assert ("\x1b[32m+" in text and "\x1b[31m-" in text) is coloured
    assert "\x1b[" not in text.split("\n")[1]  # the file header lines stay plain


BASIC = """import pypto.language as pl


@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        y = pl.add(x, 1.0)
        y = pl.add(y, 2.0)
        return y
"""


def test_a_diff_in_a_pipe_is_plain(capsys, work):
    _, _, err = run(capsys, "compile", "two.py", "--pipeline", "toy_mark", "--print-changed=diff")
    assert "\x1b[" not in err

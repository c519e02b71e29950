"""Bad files and flags give a user error naming them, fast (docs/limits.md, files: command line and configuration)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pypto_core.cli import main
from pypto_core.config import ConfigError, load_config, parse_config_text
from pypto_core.textfile import TextFileError, read_text_bounded

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "mixed_matmul_bias.py"


def run(capsys, *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().err


def test_deeply_nested_toml_is_a_config_error(tmp_path):
    deep = tmp_path / "pypto.toml"
    deep.write_text("[pipeline]\npasses = " + "[" * 3000 + "]" * 3000 + "\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="nested too deeply"):
        load_config(deep)


def test_deeply_nested_pipeline_option_is_a_user_error(capsys):
    code, err = run(capsys, "compile", str(EXAMPLE), "--pipeline",
                    "convert_to_ssa{a=" + "[" * 3000 + "]" * 3000 + "}", "-o", "/dev/null")
    assert code != 0 and "nested too deeply" in err and "internal error" not in err


def test_many_unknown_keys_each_name_their_line():
    # 5,000 keys took 87 s when each error rescanned the file; the key index is built once per text.
    text = "\n".join(f"k{i} = 1" for i in range(5000)) + "\n"
    with pytest.raises(ConfigError) as info:
        parse_config_text(text, "big.toml")
    assert "big.toml:1: k0: unknown key" in str(info.value)
    assert "big.toml:5000: k4999: unknown key" in str(info.value)


def test_a_non_utf8_config_names_the_file(tmp_path):
    bad = tmp_path / "pypto.toml"
    bad.write_bytes(b'backend = "\xff"\n')
    with pytest.raises(ConfigError, match=r"pypto.toml: not UTF-8 text"):
        load_config(bad)


def test_an_endless_file_is_bounded():
    with pytest.raises(TextFileError, match="larger than 1,024 bytes"):
        read_text_bounded("/dev/zero", 1024, "program")


@pytest.mark.parametrize("flag", ["FILE", "--config"])
def test_dev_zero_as_program_or_config(capsys, flag):
    argv = ["compile", "/dev/zero"] if flag == "FILE" else ["compile", str(EXAMPLE), "--config", "/dev/zero"]
    code, err = run(capsys, *argv, "-o", "/dev/null")
    assert code != 0 and "larger than" in err and "/dev/zero" in err


def test_an_empty_backend_flag_is_an_error(capsys):
    code, err = run(capsys, "compile", str(EXAMPLE), "--backend", "", "-o", "/dev/null")
    assert code != 0 and "--backend: an empty backend name" in err

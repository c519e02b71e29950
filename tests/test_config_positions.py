"""Where each key and array entry of a pypto.toml is (pypto_core/config/positions.py), and errors at those
lines: dotted and quoted keys, inline tables, nested and multi-line arrays with comments."""

from __future__ import annotations

import pytest

from pypto_core.config import ConfigError, key_lines, line_of, parse_config_text

TEXT = '''# a comment
backend = "Ascend910B"
a."b c".d = 1
[pipeline]
passes = [
  "convert_to_ssa",   # first
  # a comment line between entries
  "outline_incore_scopes",
  ["x", "y"],
]
[passes.lower_auto_vector_split]
opts = {k = 1, m = [1, 2]}
[dump]
print_after = ["a",
               "b"]
'''


def test_every_key_header_and_entry_has_its_first_line():
    lines = key_lines(TEXT)
    assert lines[("backend",)] == 2
    assert lines[("a", "b c", "d")] == 3
    assert lines[("pipeline",)] == 4
    assert lines[("pipeline", "passes")] == 5
    assert lines[("pipeline", "passes", "0")] == 6
    assert lines[("pipeline", "passes", "1")] == 8
    assert lines[("pipeline", "passes", "2", "1")] == 9
    assert lines[("passes", "lower_auto_vector_split", "opts", "m", "1")] == 12
    assert lines[("dump", "print_after", "1")] == 15


def test_a_path_without_a_line_takes_its_nearest_enclosing_key():
    assert line_of(TEXT, ("pipeline", "passes", "7")) == 5
    assert line_of(TEXT, ("nowhere",)) is None


@pytest.mark.parametrize(("text", "where"), [
    ('[dump]\nprint_after = [\n  "x",\n  3,\n]\n', "pypto.toml:4: dump.print_after[1]"),
    ('[pipeline]\n"preset" = 5\n', "pypto.toml:2: pipeline.preset"),
    ('[dump]\ntiming = {a = 1}\n', "pypto.toml:2: dump.timing"),
])
def test_schema_errors_name_the_line_of_the_offending_entry(text, where):
    with pytest.raises(ConfigError) as info:
        parse_config_text(text, "pypto.toml")
    assert str(info.value).startswith(where), str(info.value)

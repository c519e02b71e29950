"""The pipeline string `a,b{opt=1},c` of --pipeline and [pipeline] passes."""

from __future__ import annotations

import pytest

from pypto_core.passes.pipeline_spec import PipelineSpecError, PipelineStep, parse_pipeline


def test_names_and_options():
    assert parse_pipeline("convert_to_ssa, outline_incore_scopes{opt=1}") == [
        PipelineStep("convert_to_ssa"), PipelineStep("outline_incore_scopes", {"opt": 1})]


def test_option_values_are_toml_or_bare_words():
    (step,) = parse_pipeline('p{a=1.5, b=true, c="x,y", d=[1, 2], e=fast}')
    assert step.options == {"a": 1.5, "b": True, "c": "x,y", "d": [1, 2], "e": "fast"}


def test_empty_option_braces_mean_no_options():
    assert parse_pipeline("p{}") == [PipelineStep("p")]


@pytest.mark.parametrize("text, message", [
    ("a,b{opt=1", "missing '}' or ']'"),
    ("a,{x=1}", "a pass name is missing"),
    ("a,b{opt}", "expected 'option=value' in the options of 'b'"),
    ('a{s="open}', "unterminated string"),
    ("a}", "unbalanced '}'"),
    ("a-b", "'a-b' is not a pass name"),
    (" , ", "it names no pass"),
])
def test_errors_point_at_the_problem(text, message):
    with pytest.raises(PipelineSpecError, match=message):
        parse_pipeline(text)


def test_error_shows_a_caret_under_the_position():
    with pytest.raises(PipelineSpecError) as info:
        parse_pipeline("a,b{opt}")
    lines = str(info.value).splitlines()
    assert lines[1] == "  a,b{opt}"
    assert lines[2].index("^") == lines[1].index("opt")

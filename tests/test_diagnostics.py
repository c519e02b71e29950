"""A program a pass rejects is reported like a parse error: message, file:line:col, the line, a caret."""

import pytest

import pypto.language as pl
from pypto import passes
from pypto_core.diagnostics import render_located
from pypto_core.ir.span import Span

SRC = """import pypto.language as pl

@pl.program
class Bad:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        with pl.at(level=pl.Level.CORE_GROUP):
            v = n
            for i in pl.range(2):
                v = v + i
        return v
"""


def test_pass_error_quotes_the_source_text_given_to_pl_parse():
    program = pl.parse(SRC, "bad_scalar.py")
    with pytest.raises(ValueError) as info:
        passes.outline_incore_scopes()(passes.convert_to_ssa()(program))
    text = str(info.value)
    assert "the scalar 'v'" in text
    assert "  --> bad_scalar.py:8:13" in text
    assert "8 |             v = n" in text
    assert "  |             ^^^^^" in text


def test_render_without_source_keeps_the_location():
    assert render_located("boom", Span("nowhere.py", 3, 5)) == "boom\n  --> nowhere.py:3:5"
    assert render_located("boom", Span.unknown(), hint="do x") == "boom\n  hint: do x"

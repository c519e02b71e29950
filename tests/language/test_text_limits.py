"""Bad text gives a located ValueError, never a crash (docs/limits.md, the text path; limits in pypto_core/language/parser/limits.py)."""

from __future__ import annotations

import pytest

from pypto_core.language.api import parse
from pypto_core.language.parser.limits import MAX_NESTING, describe_int

T = "pl.Tensor[[16, 64], pl.FP32]"
HEAD = "import pypto.language as pl\n@pl.function\n"


def located(text: str, message: str, line: int) -> None:
    with pytest.raises(ValueError) as info:
        parse(text, "prog.py")
    rendered = str(info.value)
    assert message in rendered
    assert f"--> prog.py:{line}:" in rendered, rendered


def fn(body: str, params: str = f"x: {T}", ret: str = T) -> str:
    return HEAD + f"def f({params}) -> {ret}:\n" + body


def test_empty_text_and_two_functions_are_located():
    located("", "expected exactly one @pl.program class or @pl.function", 1)
    two = fn("    return x\n") + fn("    return x\n").replace("def f", "def g").replace("import pypto.language as pl\n", "")
    located(two, "found 2 programs/functions", 6)


def test_nul_and_lone_surrogate_are_located():
    located("import pypto.language as pl\nx = 1\x00\n", "contains a NUL byte", 2)
    located("import pypto.language as pl\n# \ud800\n", "lone surrogate character (U+D800)", 2)


def test_expressions_too_deep_or_too_long():
    located(fn("    y = " + " + ".join(["n"] * 50000) + "\n    return y\n", "n: pl.Scalar[pl.INDEX]",
               "pl.Scalar[pl.INDEX]"), "nested too deeply or too long", 4)
    located(fn("    y = " + "-" * (MAX_NESTING + 5) + "n\n    return y\n", "n: pl.Scalar[pl.INDEX]",
               "pl.Scalar[pl.INDEX]"), f"nests more than {MAX_NESTING} levels", 4)
    deep_list = "[" * 200 + "1" + "]" * 200
    located(fn(f"    y = {deep_list}\n    return x\n"), f"nests more than {MAX_NESTING} levels", 4)


@pytest.mark.parametrize("statement, line", [
    ("y = " + "-" * MAX_NESTING + "n", 4),  # one character per level, on one line: just past the bound
    ("y = (" + "-" * MAX_NESTING + "\n    n)", 5),  # the same over two lines (the innermost node is named)
])
def test_a_nesting_just_past_the_bound_is_located(statement, line):
    # The nesting walk skips one-line statements shorter than MAX_NESTING bytes (each level adds a
    # character); one level more than the bound is still found, on one line or several.
    located(fn(f"    {statement}\n    return y\n", "n: pl.Scalar[pl.INDEX]", "pl.Scalar[pl.INDEX]"),
            f"nests more than {MAX_NESTING} levels", line)


def test_a_nesting_under_the_bound_parses():
    assert parse(fn("    y = " + "-" * 50 + "n\n    return y\n", "n: pl.Scalar[pl.INDEX]", "pl.Scalar[pl.INDEX]"))


@pytest.mark.parametrize("literal", ["18446744073709551616", "-9223372036854775809", "2 ** 64", "10 ** 5000"])
def test_integers_past_int64_are_located(literal):
    located(fn(f"    for i in pl.range({literal}):\n        x = pl.add(x, 1.0)\n    return x\n"),
            "does not fit in 64 bits", 4)


def test_int64_bounds_are_accepted():
    assert parse(fn("    for i in pl.range(9223372036854775807):\n        x = pl.add(x, 1.0)\n    return x\n"))


def test_huge_integers_are_described_without_str():
    assert describe_int(12345) == "12345"
    assert "digits" in describe_int(10 ** 5000)


@pytest.mark.parametrize("dim", ["-1", "0", "2147483648", "18446744073709551616"])
def test_dims_outside_the_bound_are_located(dim):
    ty = f"pl.Tensor[[{dim}, 64], pl.FP32]"
    with pytest.raises(ValueError) as info:
        parse(fn("    return x\n", f"x: {ty}", ty), "prog.py")
    assert "--> prog.py:3:" in str(info.value)


def test_negative_dim_hints_at_pl_dynamic():
    ty = "pl.Tensor[[-1, 64], pl.FP32]"
    with pytest.raises(ValueError, match="outside 1..2147483647") as info:
        parse(fn("    return x\n", f"x: {ty}", ty))
    assert "pl.dynamic" in str(info.value)


def test_declared_returns_without_a_return_are_located():
    located(fn("    y = pl.add(x, 1.0)\n", ret=f"tuple[{T}, {T}]"), "declares 2 return value(s) but never returns", 3)


def test_a_bare_function_with_a_dynamic_dim_prints_back():
    text = HEAD.replace("@pl.function\n", 'M = pl.dynamic("M")\n@pl.function\n') + \
        "def f(x: pl.Tensor[[M, 64], pl.FP32]) -> pl.Tensor[[M, 64], pl.FP32]:\n    return x\n"
    printed = parse(text).as_python()
    assert "__FREE_VAR" not in printed and printed.startswith('M = pl.dynamic("M")')
    again = parse(printed)
    assert again.as_python() == printed


def test_the_decorator_path_has_the_same_nesting_bound(tmp_path, monkeypatch):
    deep = "-" * (MAX_NESTING + 5) + "n"
    (tmp_path / "deep_kernel.py").write_text(
        "import pypto.language as pl\n\n\n@pl.function\n"
        f"def f(n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:\n    y = {deep}\n    return y\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ValueError, match=f"nests more than {MAX_NESTING} levels") as info:
        __import__("deep_kernel")
    assert "deep_kernel.py:6:" in str(info.value)


@pytest.mark.parametrize(("literal", "message"), [
    ("-18446744073709551616", "does not fit in 64 bits"),
    ("3000000000", "the literal 3000000000 does not fit the operand's dtype INT32"),
])
def test_a_literal_operand_must_fit(literal, message):
    ty = "pl.Tensor[[16, 64], pl.INT32]"
    located(fn(f"    y = pl.add(x, {literal})\n    return y\n", f"x: {ty}", ty), message, 4)


def test_a_literal_that_fits_is_typed_like_the_operand():
    ty = "pl.Tensor[[16, 64], pl.INT32]"
    printed = parse(fn("    y = pl.add(x, 2147483647)\n    return y\n", f"x: {ty}", ty)).as_python()
    assert "pl.const(2147483647, pl.INT32)" in printed


def test_a_float_dimension_is_located():
    ty = "pl.Tensor[[64, 1.5], pl.FP32]"
    located(fn("    return x\n", f"x: {ty}", ty), "a shape dimension must be an integer, got 1.5", 3)


def test_carets_quote_the_text_a_span_came_from_after_another_parse():
    from pypto import passes

    first = parse(HEAD + f"def f(x: {T}) -> {T}:\n    y__bad = pl.add(x, 1.0)\n    return y__bad\n")
    parse("import pypto.language as pl\n# a second text\n# under the same default name\n# line four\n"
          + "@pl.function\n" + f"def g(x: {T}) -> {T}:\n    return x\n")
    with pytest.raises(ValueError) as info:
        passes.convert_to_ssa()(first)
    assert "4 |     y__bad = pl.add(x, 1.0)" in str(info.value)


@pytest.mark.parametrize("const, why", [
    ("pl.const(1e+300, pl.INT32)", "1e+300 does not fit in INT32 (-2147483648..2147483647)"),
    ("pl.const(300, pl.INT8)", "300 does not fit in INT8 (-128..127)"),
    ("pl.const(-1, pl.UINT8)", "-1 does not fit in UINT8 (0..255)"),
    ("pl.const(1.5, pl.INT32)", "1.5 is not an integer, but INT32 is an integer dtype"),
    ("pl.const(2, pl.BOOL)", "2 is not a BOOL value (0 or 1)"),
])
def test_a_constant_must_fit_its_dtype(const, why):
    # Unchecked, pl.const(1e+300, pl.INT32) would be accepted and overflow in the reference machine (an internal
    # error in check-run).
    located(fn(f"    k = {const}\n    return x\n"), f"pl.const: {why}", 4)


@pytest.mark.parametrize("const", ["pl.const(127, pl.INT8)", "pl.const(4.0, pl.INT32)", "pl.const(1e300, pl.FP16)",
                                   "pl.const(1, pl.BOOL)"])
def test_a_constant_that_fits_its_dtype_parses(const):
    assert parse(fn(f"    k = {const}\n    return x\n"))

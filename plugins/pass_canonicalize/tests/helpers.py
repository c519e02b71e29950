"""Parsing, printing and checking helpers for the pass_canonicalize tests."""

from __future__ import annotations

import pypto.language as pl
from pypto import ir

HEADER = "import pypto.language as pl\n\n"


def program(src: str) -> ir.Program:
    parsed = pl.parse(HEADER + src)
    return parsed if isinstance(parsed, ir.Program) else ir.Program([parsed], "P")


def expect(after: ir.Program, expected_src: str) -> None:
    """`after` is structurally the program `expected_src` (names free) and prints back to it."""
    ir.assert_structural_equal(after, program(expected_src))
    ir.assert_structural_equal(after, pl.parse(ir.python_print(after)))


def body_text(prog: ir.Program, name: str) -> list[str]:
    """The printed body of function `name`, lines without the common indentation."""
    lines = ir.python_print(prog.get_function(name), format=False).splitlines()
    start = next(i for i, line in enumerate(lines) if line.lstrip().startswith("def "))
    body = lines[start + 1:]
    indent = min(len(line) - len(line.lstrip()) for line in body if line.strip())
    return [line[indent:] for line in body]

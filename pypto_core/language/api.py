"""`pl.parse`, `pl.parse_program`, `pl.loads`."""

from __future__ import annotations

from pypto_core.ir.function import Function, Program
from pypto_core.language.parser.program_parser import parse_text


def parse(code: str, filename: str = "<string>") -> Function | Program:
    """The single function or program defined in `code`, built from its AST (the code is not run)."""
    return parse_text(code, filename)


def parse_program(code: str, filename: str = "<string>") -> Program:
    result = parse_text(code, filename)
    if not isinstance(result, Program):
        raise ValueError(f"{filename}: expected a @pl.program class, found a @pl.function")
    return result


loads = parse

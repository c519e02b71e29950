"""`parse(code, filename)`: DSL text to IR, without executing the text (docs/dsl.md, the text path)."""

from typing import Any

from pypto_core.ir.function import Function, Program
from pypto_core.language.parser.program_parser import parse_text


def parse(code: str, filename: str = "<string>", source_map: Any = None) -> Function | Program:
    return parse_text(code, filename)


__all__ = ["parse"]

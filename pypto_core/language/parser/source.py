"""Where parsed code came from: file name, line/column offsets, full-line comments."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from pypto_core.ir.span import Span


@dataclass
class SourceInfo:
    filename: str
    text: str  # the (dedented) text handed to ast.parse
    line_offset: int = 0  # added to AST line numbers
    col_offset: int = 0  # added to AST column offsets (the dedent)
    source_lines: list[str] | None = None  # lines for error excerpts, indexed by *file* line
    text_lines: list[str] = field(default_factory=list)  # lines of `text`, indexed by AST line - 1

    @staticmethod
    def from_text(text: str, filename: str = "<string>", line_offset: int = 0, col_offset: int = 0,
                  source_lines: list[str] | None = None) -> SourceInfo:
        lines = text.splitlines()
        return SourceInfo(filename, text, line_offset, col_offset,
                          source_lines if source_lines is not None else lines, lines)

    def span(self, node: ast.AST) -> Span:
        line = getattr(node, "lineno", None)
        if line is None:
            return Span(self.filename)
        end_col = node.end_col_offset  # type: ignore[attr-defined]
        return Span(self.filename, line + self.line_offset, node.col_offset + self.col_offset + 1,  # type: ignore[attr-defined]
                    (node.end_lineno or line) + self.line_offset,  # type: ignore[attr-defined]
                    (end_col + self.col_offset + 1) if end_col is not None else -1, self.source_lines)

    def comments_between(self, after_line: int, before_line: int) -> list[str]:
        """Full-line comments strictly between two AST lines, in order.

        Lines between two statements cannot be inside a string literal (strings live inside
        statements), so a line whose first non-blank character is `#` is a comment; no tokenizer needed.
        """
        out: list[str] = []
        lines = self.text_lines
        for n in range(max(after_line, 0), min(before_line - 1, len(lines))):
            stripped = lines[n].lstrip()
            if stripped.startswith("#"):
                out.append(stripped[1:].strip())
        return out


def dedent_lines(lines: list[str]) -> tuple[str, int]:
    """Remove the first line's indentation from every line; returns (text, removed columns)."""
    if not lines:
        return "", 0
    first = lines[0]
    indent = len(first) - len(first.lstrip())
    prefix = first[:indent]
    out = []
    for line in lines:
        if line.startswith(prefix):
            out.append(line[indent:])
        elif not line.strip():
            out.append("\n")
        else:
            out.append(line.lstrip())
    return "".join(out), indent

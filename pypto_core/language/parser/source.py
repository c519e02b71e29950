"""Where parsed code came from: file name, line/column offsets, full-line comments."""

from __future__ import annotations

import ast
import io
import tokenize
from dataclasses import dataclass, field

from pypto_core.ir.span import Span


@dataclass
class SourceInfo:
    filename: str
    text: str  # the (dedented) text handed to ast.parse
    line_offset: int = 0  # added to AST line numbers
    col_offset: int = 0  # added to AST column offsets (the dedent)
    source_lines: list[str] | None = None  # lines for error excerpts, indexed by *file* line
    comments: dict[int, str] = field(default_factory=dict)  # AST line -> full-line comment text

    @staticmethod
    def from_text(text: str, filename: str = "<string>", line_offset: int = 0, col_offset: int = 0,
                  source_lines: list[str] | None = None) -> SourceInfo:
        info = SourceInfo(filename, text, line_offset, col_offset,
                          source_lines if source_lines is not None else text.splitlines())
        info.comments = _full_line_comments(text)
        return info

    def span(self, node: ast.AST) -> Span:
        line = getattr(node, "lineno", None)
        if line is None:
            return Span(self.filename)
        col = getattr(node, "col_offset", 0)
        end_line = getattr(node, "end_lineno", None) or line
        end_col = getattr(node, "end_col_offset", None)
        return Span(self.filename, line + self.line_offset, col + self.col_offset + 1,
                    end_line + self.line_offset,
                    (end_col + self.col_offset + 1) if end_col is not None else -1)

    def comments_between(self, after_line: int, before_line: int) -> list[str]:
        """Full-line comments strictly between two AST lines, in order."""
        return [self.comments[n] for n in range(after_line + 1, before_line) if n in self.comments]


def _full_line_comments(text: str) -> dict[int, str]:
    out: dict[int, str] = {}
    lines = text.splitlines()
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.COMMENT:
                line_no = tok.start[0]
                if lines[line_no - 1].strip().startswith("#"):
                    out[line_no] = tok.string[1:].strip()
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass  # ast.parse reports the real syntax error
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

"""Rendering a located message: `message`, `--> file:line:col`, the source line and a caret.

Parser errors and the ValueErrors passes raise share this form (docs/dsl.md, errors). Source
text comes from the error itself when it has it, else from linecache (files, and text given to
`pl.parse`, which registers it there).
"""

from __future__ import annotations

import linecache
from collections.abc import Sequence
from typing import Any


def source_line(span: Any, source_lines: Sequence[str] | None = None) -> str | None:
    line = getattr(span, "begin_line", -1)
    if source_lines is None:
        source_lines = getattr(span, "source", None)  # the text the parser read this span from
    if source_lines is not None and 0 < line <= len(source_lines):
        return source_lines[line - 1]
    try:
        text = linecache.getline(span.filename, line)
    except Exception:  # a missing file only costs us the excerpt
        return None
    return text or None


def render_located(message: str, span: Any, source_lines: Sequence[str] | None = None,
                   hint: str | None = None, note: str | None = None) -> str:
    lines = [message]
    if span is not None and getattr(span, "is_valid", lambda: False)():
        lines.append(f"  --> {span.to_string()}")
        text = source_line(span, source_lines)
        if text is not None:
            gutter = str(span.begin_line)
            pad = " " * len(gutter)
            width = 1
            if span.end_line == span.begin_line and span.end_column > span.begin_column:
                width = span.end_column - span.begin_column
            lines += [f"{pad} |", f"{gutter} | {text.rstrip()}",
                      f"{pad} | {' ' * max(0, span.begin_column - 1)}{'^' * max(1, width)}"]
    if hint:
        lines.append(f"  hint: {hint}")
    if note:
        lines.append(f"  note: {note}")
    return "\n".join(lines)


def remember_source(filename: str, text: str) -> None:
    """Let later diagnostics (from passes) quote text that was parsed from a string."""
    lines = text.splitlines(keepends=True)
    linecache.cache[filename] = (len(text), None, lines, filename)

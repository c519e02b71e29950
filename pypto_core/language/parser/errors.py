"""Parser exceptions (docs/dsl.md, errors). Each carries `.message`, a span, and renders the source with a caret.

They subclass ValueError: a DSL mistake is a user error (docs/dsl.md, errors).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pypto_core.errors import InternalError
from pypto_core.ir.span import Span


class ParserError(ValueError):
    """Base of every DSL parse error."""

    def __init__(self, message: str, span: Span | dict[str, Any] | None = None, hint: str | None = None,
                 note: str | None = None, source_lines: Sequence[str] | None = None) -> None:
        self.message = message
        self.hint = hint
        self.note = note
        self.source_lines = list(source_lines) if source_lines is not None else None
        self._span = _as_span(span)
        super().__init__(message)

    @property
    def span(self) -> dict[str, Any] | None:
        s = self._span
        if s is None or not s.is_valid():
            return None
        return {"filename": s.filename, "line": s.begin_line, "column": s.begin_column,
                "begin_line": s.begin_line, "begin_column": s.begin_column,
                "end_line": s.end_line, "end_column": s.end_column}

    @property
    def ir_span(self) -> Span | None:
        return self._span

    def attach(self, span: Span | None, source_lines: Sequence[str] | None) -> ParserError:
        """Fill in location and source when the raiser did not know them."""
        if (self._span is None or not self._span.is_valid()) and span is not None:
            self._span = span
        if self.source_lines is None and source_lines is not None:
            self.source_lines = list(source_lines)
        return self

    def __str__(self) -> str:
        return render_error(self)


class ParserSyntaxError(ParserError):
    pass


class ParserTypeError(ParserError):
    pass


class UndefinedVariableError(ParserError):
    pass


class UnsupportedFeatureError(ParserError):
    pass


class InvalidOperationError(ParserError):
    pass


class ScopeIsolationError(ParserError):
    pass


class SSAViolationError(ParserError):
    def __init__(self, message: str, span: Span | dict[str, Any] | None = None, hint: str | None = None,
                 note: str | None = None, source_lines: Sequence[str] | None = None,
                 previous_span: Span | None = None) -> None:
        super().__init__(message, span, hint, note, source_lines)
        self.previous_span = previous_span


BUG_CLASS_EXCEPTIONS: tuple[type[BaseException], ...] = (InternalError, AssertionError)


def _as_span(span: Span | dict[str, Any] | None) -> Span | None:
    if span is None or isinstance(span, Span):
        return span
    return Span(span.get("filename", ""), span.get("begin_line", span.get("line", -1)),
                span.get("begin_column", span.get("column", -1)), span.get("end_line", -1),
                span.get("end_column", -1))


def render_error(err: ParserError) -> str:
    """`message`, then `--> file:line:col`, the source line and a caret under the column."""
    from pypto_core.diagnostics import render_located

    return render_located(err.message, err.ir_span, err.source_lines, err.hint, err.note)


class ErrorRenderer:
    """Compatibility surface of PyPTO's renderer: `ErrorRenderer().render(err)`."""

    def render(self, err: ParserError) -> str:
        return render_error(err)


def concise_error_message(err: BaseException) -> str:
    if isinstance(err, ParserError):
        return err.message
    return str(err)

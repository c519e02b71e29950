"""Source locations."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True, init=False)
class Span:
    """A source range. Lines and columns are 1-based; -1 means unknown."""

    filename: str = ""
    begin_line: int = -1
    begin_column: int = -1
    end_line: int = -1
    end_column: int = -1
    # The lines of the text the span points into, when the parser knows them: diagnostics quote these, so a
    # second pl.parse of another text under the same name does not change what an earlier span shows.
    # Not part of equality or the printed form.
    source: Any = field(default=None, compare=False, repr=False)

    def __init__(self, filename: str = "", begin_line: int = -1, begin_column: int = -1, end_line: int = -1,
                 end_column: int = -1, source: Any = None) -> None:
        # Written out rather than generated: a frozen dataclass sets each field through
        # object.__setattr__, several times slower than the slot's own setter, and the parser builds a
        # Span for nearly every node.
        _set_filename(self, filename)
        _set_begin_line(self, begin_line)
        _set_begin_column(self, begin_column)
        _set_end_line(self, end_line)
        _set_end_column(self, end_column)
        _set_source(self, source)

    @staticmethod
    def unknown() -> Span:
        return _UNKNOWN

    def is_valid(self) -> bool:
        return self.begin_line > 0

    def to_string(self) -> str:
        if not self.is_valid():
            return "<unknown>"
        return f"{self.filename or '<string>'}:{self.begin_line}:{self.begin_column}"

    def __str__(self) -> str:
        return self.to_string()


def _slot_setter(name: str) -> Any:
    return Span.__dict__[name].__set__  # the slot's descriptor: sets the field without going through __setattr__


_set_filename = _slot_setter("filename")
_set_begin_line = _slot_setter("begin_line")
_set_begin_column = _slot_setter("begin_column")
_set_end_line = _slot_setter("end_line")
_set_end_column = _slot_setter("end_column")
_set_source = _slot_setter("source")
_UNKNOWN = Span()

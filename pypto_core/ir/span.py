"""Source locations."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Span:
    """A source range. Lines and columns are 1-based; -1 means unknown."""

    filename: str = ""
    begin_line: int = -1
    begin_column: int = -1
    end_line: int = -1
    end_column: int = -1

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


_UNKNOWN = Span()

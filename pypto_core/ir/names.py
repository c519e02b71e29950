"""Names of pass-generated variables: `<base>__<role>[_v<N>]` (docs/dsl.md, the printed form).

User base names may not contain the delimiter `__`; a name that already has the generated shape
(e.g. `x__ssa_v3`, `out__store`) is read back as its base so that passes can run on printed output.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from pypto_core.diagnostics import render_located, source_line

ROLES = ("ssa", "iter", "rv", "phi", "tile", "tmp", "out", "store", "idx", "scalar_fill_storage", "scalar_fill", "tile_full_rank")
DELIMITER = "__"
_GENERATED = re.compile(r"^(?P<base>.+?)__(?P<role>" + "|".join(ROLES) + r")(?:_v(?P<version>\d+))?(?:_\d+)?$")


class ReservedNameError(ValueError):
    """A user variable name contains the reserved delimiter '__'."""


def split_generated(name: str) -> tuple[str, str | None, int | None]:
    """(base, role, version) of a generated name; (name, None, None) for a plain user name."""
    m = _GENERATED.match(name)
    if m is None:
        return name, None, None
    version = m.group("version")
    return m.group("base"), m.group("role"), int(version) if version is not None else None


def base_name(name: str, where: str = "", span: Any = None) -> str:
    """The user base of a name; a user name containing '__' is an error naming it, located (`--> file:
    line:col`, the line and a caret) when `span` is known, else `(at where)` when `where` is given."""
    base, role, _ = split_generated(name)
    if role is None and DELIMITER in name:
        located = span is not None and getattr(span, "is_valid", lambda: False)()
        at = f" (at {where})" if where and not located else ""
        message = (f"variable name '{name}' uses the reserved delimiter '__'{at}: pypto builds names like "
                   f"'{name.split('__')[0]}__ssa_v0' from it; rename the variable (e.g. "
                   f"'{name.replace('__', '_')}')")
        raise ReservedNameError(render_located(message, _name_span(name, span)) if located else message)
    return base


def _name_span(name: str, span: Any) -> Any:
    """The span of just the name when the span starts with it (a Var's span may cover its whole
    assignment), else the span itself."""
    text = source_line(span)
    start = span.begin_column - 1
    if text is None or start < 0 or text[start:start + len(name)] != name:
        return span
    from pypto_core.ir.span import Span

    return Span(span.filename, span.begin_line, span.begin_column, span.begin_line, span.begin_column + len(name),
                getattr(span, "source", None))


def generated(base: str, role: str, version: int | None = None) -> str:
    return f"{base}{DELIMITER}{role}" + (f"_v{version}" if version is not None else "")


class VersionCounter:
    """Next free version per base name; seeded from names already in the function."""

    def __init__(self, existing: Iterable[str] = ()) -> None:
        self.next: dict[str, int] = defaultdict(int)
        for name in existing:
            base, _, version = split_generated(name)
            if version is not None:
                self.next[base] = max(self.next[base], version + 1)

    def take(self, base: str) -> int:
        v = self.next[base]
        self.next[base] = v + 1
        return v

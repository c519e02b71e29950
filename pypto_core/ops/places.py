"""Where a registered thing was defined: `file:line`, so a name registered twice names both places.

An op, a DSL name, an IR builder, an interface implementation or a semantics function is registered
under a name that must be unique (docs/architecture.md, the op registry). When a second registration
of a name arrives, the error names both owners and both definition sites.
"""

from __future__ import annotations

import inspect
import os
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

# The registration machinery itself: a definition site is never inside it.
_MACHINERY = tuple(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), d) + os.sep
                   for d in ("ops", "plugins"))


@dataclass(frozen=True)
class Place:
    """Who registered a name (plugin) and where it is defined (`path:line`, empty when unknown)."""

    owner: str
    site: str = ""

    def __str__(self) -> str:
        return f"'{self.owner}' ({self.site})" if self.site else f"'{self.owner}'"


def shown_path(path: str) -> str:
    """A path relative to the working directory when it lies below it (shorter messages), else absolute."""
    try:
        rel = os.path.relpath(path)
    except ValueError:  # another drive
        return path
    return path if rel.startswith("..") else rel


def function_site(fn: Any) -> str:
    """`path:line` of a function's definition (through DSL wrappers to the function they wrap)."""
    target = (getattr(fn, "dsl_target", None) or inspect.unwrap(fn)) if callable(fn) else fn
    code = getattr(target, "__code__", None)
    if code is None:  # a callable object: its class's method
        code = getattr(getattr(type(target), "__call__", None), "__code__", None)  # noqa: B004
    if code is None:
        return ""
    return f"{shown_path(code.co_filename)}:{code.co_firstlineno}"


def caller_site(skip: Iterable[str] = ()) -> str:
    """`path:line` of the statement that is registering or building something: the outermost frame of
    the first file outside pypto_core/ops and pypto_core/plugins (and `skip`), so a helper such as `_op(...)` called from a
    module-level table reports the table's line, not the helper's."""
    skipped = {os.path.abspath(s) for s in skip}
    frame = sys._getframe(1)
    while frame is not None:
        raw = frame.f_code.co_filename
        path = os.path.abspath(raw)
        if not raw.startswith("<") and not path.startswith(_MACHINERY) and path not in skipped:
            break
        frame = frame.f_back
    if frame is None:
        return ""
    path = frame.f_code.co_filename
    line = frame.f_lineno
    outer = frame.f_back
    while outer is not None and outer.f_code.co_filename == path:
        line = outer.f_lineno
        outer = outer.f_back
    return f"{shown_path(path)}:{line}"

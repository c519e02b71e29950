"""Which backend is active: the PassContext's, else the process-wide choice, else Ascend910B.

`pypto.backend.set_backend_type` (docs/architecture.md, backends) writes the process-wide choice; pypto.toml and
`--backend` set the PassContext's.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pypto_core.backend.backend import Backend

DEFAULT_BACKEND = "Ascend910B"

_LOCK = threading.Lock()
_selected: str | None = None


def select_backend(name: str) -> None:
    """Set the process-wide backend once; choosing another one later is an error (docs/architecture.md, backends)."""
    global _selected
    with _LOCK:
        if _selected is not None and _selected != name:
            raise ValueError(f"the backend is already set to {_selected}; cannot change it to {name} "
                             "(call pypto.backend.reset_for_testing() first in tests)")
        _selected = name


def selected_backend_name() -> str | None:
    return _selected


def clear_selection() -> None:
    global _selected
    with _LOCK:
        _selected = None


def resolve_backend_name(name: str) -> str:
    """The registered name matching `name` case-insensitively, or a ValueError with a suggestion."""
    from pypto_core.backend.registry import BACKENDS

    if name in BACKENDS:
        return name
    for known in BACKENDS.names():
        if known.lower() == name.lower():
            return known
    raise ValueError(f"unknown backend '{name}'{BACKENDS.suggest(name)}")


def active_backend(explicit: str | None = None) -> Backend:
    """The Backend object for `explicit`, else the process-wide choice, else the default."""
    from pypto_core.backend.registry import get_backend

    name = explicit or _selected or DEFAULT_BACKEND
    try:
        return get_backend(resolve_backend_name(name))
    except ValueError as exc:
        raise ValueError(f"{exc} (is the plugin that provides it disabled or not installed?)") from None

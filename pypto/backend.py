"""`pypto.backend` (docs/architecture.md, backends): choose the backend process-wide, as PyPTO's tests do.

The choice is one of the registered backend plugins; passes read it through the PassContext
(`ctx.backend`), which falls back to this process-wide choice and then to Ascend910B.
"""

from __future__ import annotations

import enum

from pypto_core.backend.selection import clear_selection, select_backend, selected_backend_name


class BackendType(enum.Enum):
    Ascend910B = 0  # a2a3
    Ascend950 = 1  # a5


def set_backend_type(backend_type: BackendType) -> None:
    """Idempotent for the same value; ValueError when changing an already-set backend."""
    if not isinstance(backend_type, BackendType):
        raise TypeError(f"set_backend_type needs a BackendType, got {backend_type!r}")
    select_backend(backend_type.name)


def get_backend_type() -> BackendType:
    name = selected_backend_name()
    if name is None:
        raise ValueError("no backend is configured; call pypto.backend.set_backend_type(...) first")
    try:
        return BackendType[name]
    except KeyError:
        raise ValueError(f"the configured backend '{name}' has no BackendType member") from None


def is_backend_configured() -> bool:
    return selected_backend_name() is not None


def reset_for_testing() -> None:
    clear_selection()


__all__ = ["BackendType", "get_backend_type", "is_backend_configured", "reset_for_testing", "set_backend_type"]

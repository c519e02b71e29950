"""Backends: the interface in the core, the implementations in plugins (docs/architecture.md, backends)."""

from pypto_core.backend.backend import CAPABILITIES, Backend, CoreGroup
from pypto_core.backend.selection import DEFAULT_BACKEND, active_backend

__all__ = ["CAPABILITIES", "DEFAULT_BACKEND", "Backend", "CoreGroup", "active_backend"]

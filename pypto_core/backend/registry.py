"""Registry of backends, filled by backend plugins."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pypto_core.plugins.named_registry import NamedRegistry

if TYPE_CHECKING:
    from pypto_core.backend.backend import Backend

BACKENDS: NamedRegistry[Backend] = NamedRegistry("backend")


def get_backend(name: str) -> Backend:
    return BACKENDS.require(name)

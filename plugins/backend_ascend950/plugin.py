"""Entry point of the backend_ascend950 plugin (group `pypto.plugins`)."""

from __future__ import annotations

from typing import Any

from pypto_core.plugins import hookimpl
from pypto_plugins.backend_ascend950.backend import ASCEND950


@hookimpl
def pypto_register_backends(registry: Any) -> None:
    registry.register_backend(ASCEND950)

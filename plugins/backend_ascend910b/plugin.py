"""Entry point of the backend_ascend910b plugin (group `pypto.plugins`)."""

from __future__ import annotations

from typing import Any

from pypto_core.plugins import hookimpl
from pypto_plugins.backend_ascend910b.backend import ASCEND910B


@hookimpl
def pypto_register_backends(registry: Any) -> None:
    registry.register_backend(ASCEND910B)

"""Entry point of the pass_memory plugin: the memory planning passes and their property verifiers."""

from __future__ import annotations

from typing import Any

from pypto_core.plugins import hookimpl


@hookimpl
def pypto_register_passes(registry: Any) -> None:
    del registry  # the passes register here as they land (docs/memory_planning.md)

"""Entry point of the ops_comm plugin (group `pypto.plugins`, name `ops_comm`)."""

from __future__ import annotations

from typing import Any

from pypto_core.plugins import hookimpl
from pypto_plugins.ops_comm.comm import family


@hookimpl
def pypto_register_ops(registry: Any) -> None:
    registry.register_family(family)

"""Entry point of the ops_tile plugin (group `pypto.plugins`, name `ops_tile`): registers each op family
(families/), which holds its ops' OpDefs, semantics, interface implementations and DSL names."""

from __future__ import annotations

from typing import Any

from pypto_core.plugins import hookimpl
from pypto_plugins.ops_tile.families import FAMILIES


@hookimpl
def pypto_register_ops(registry: Any) -> None:
    for family in FAMILIES:
        registry.register_family(family)

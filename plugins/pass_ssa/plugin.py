"""Entry point of the pass_ssa plugin: ConvertToSSA and NormalizeStmtStructure."""

from __future__ import annotations

from typing import Any

from pypto_core.plugins import hookimpl
from pypto_plugins.pass_ssa.convert_to_ssa import ConvertToSSA
from pypto_plugins.pass_ssa.normalize import NormalizeStmtStructure


@hookimpl
def pypto_register_passes(registry: Any) -> None:
    registry.register_pass(ConvertToSSA)
    registry.register_pass(NormalizeStmtStructure)

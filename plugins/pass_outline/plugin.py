"""Entry point of the pass_outline plugin: OutlineIncoreScopes."""

from __future__ import annotations

from typing import Any

from pypto_core.plugins import hookimpl
from pypto_plugins.pass_outline.outline_incore_scopes import OutlineIncoreScopes


@hookimpl
def pypto_register_passes(registry: Any) -> None:
    registry.register_pass(OutlineIncoreScopes)

"""The passes of the `default` preset, as the plugins register them: tests that follow the default pipeline
read it here instead of pinning a list that changes whenever a pass joins the preset."""

from __future__ import annotations

from pypto_core.passes.registry import PIPELINES
from pypto_core.plugins.host import ensure_plugins_loaded


def default_passes() -> list[str]:
    ensure_plugins_loaded()
    return list(PIPELINES.require("default"))


def step_of(name: str) -> int:
    """The 1-based step of pass `name` in the default pipeline (step 0 is the input)."""
    return default_passes().index(name) + 1

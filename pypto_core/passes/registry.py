"""Registries of Pass classes (keyed by factory name, e.g. `convert_to_ssa`) and pipeline presets."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pypto_core.plugins.named_registry import NamedRegistry

if TYPE_CHECKING:
    from pypto_core.passes.pass_base import Pass

PASSES: NamedRegistry[type[Pass]] = NamedRegistry("pass")
PIPELINES: NamedRegistry[list[str]] = NamedRegistry("pipeline preset")
# Other names a plugin publishes in the `pypto.passes` namespace (a module such as PyPTO's
# `passes.l0_tile_chooser`), looked up before pass factories (docs/plugins.md, hooks).
PASSES_NAMESPACE: NamedRegistry[object] = NamedRegistry("passes attribute")
# Helpers a plugin publishes as `pypto.testing.<name>` (PyPTO's test-facing functions, such as
# `recognize_dsa_reuse_penalties`; docs/plugins.md, hooks).
TESTING_NAMESPACE: NamedRegistry[object] = NamedRegistry("testing attribute")


def pass_class(factory_name: str) -> type[Pass]:
    return PASSES.require(factory_name)


def find_pass_by_name(name: str) -> type[Pass] | None:
    """A pass class by factory name (`outline_incore_scopes`) or pass name (`OutlineIncoreScopes`)."""
    hit = PASSES.get(name)
    if hit is not None:
        return hit
    for _, cls in PASSES.items():
        if cls.name == name:
            return cls
    return None

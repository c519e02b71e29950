"""The hooks a pypto plugin may implement (docs/architecture.md, plugins via entry points).

Each hook receives a `Registrar` bound to the plugin, so every registration records its owner.
A plugin implements only the hooks it needs:

    import pluggy
    hookimpl = pluggy.HookimplMarker("pypto")

    @hookimpl
    def pypto_register_ops(registry):
        registry.register_op(OpDef(...))
"""

from __future__ import annotations

from typing import Any

import pluggy

# The plugin API a plugin module may declare it needs (`PYPTO_PLUGIN_API = (2, 0)`): the host loads it
# when the major versions are equal and the plugin's minor is at most this one. The minor grows when the
# API gains names; the major changes when something a plugin could use changes or goes away.
# 2.0: an op's pass forms are implementations of op interfaces (registry.implement), no longer OpDef fields.
PLUGIN_API_VERSION: tuple[int, int] = (2, 0)

hookspec = pluggy.HookspecMarker("pypto")
hookimpl = pluggy.HookimplMarker("pypto")


@hookspec
def pypto_register_ops(registry: Any) -> None:
    """Register OpDefs (`registry.register_op`), `pl` DSL names (`register_dsl`) and IR builders."""


@hookspec
def pypto_register_properties(registry: Any) -> None:
    """Register IR properties and their verifiers (`registry.register_property`)."""


@hookspec
def pypto_register_passes(registry: Any) -> None:
    """Register Pass classes (`registry.register_pass`)."""


@hookspec
def pypto_register_backends(registry: Any) -> None:
    """Register Backend objects (`registry.register_backend`)."""


@hookspec
def pypto_register_pipelines(registry: Any) -> None:
    """Register named pipeline presets (`registry.register_pipeline(name, [pass names])`)."""


HOOK_NAMES = ("pypto_register_ops", "pypto_register_properties", "pypto_register_passes",
              "pypto_register_backends", "pypto_register_pipelines")

"""The one way a registry read loads the plugins: lazily, once (docs/architecture.md, plugins via entry points).

The registries fill when the plugin host loads the plugins; reading any of them (ops, DSL names, passes,
pipelines, properties, backends) first goes through `plugins_loaded()`, so the Python API needs no explicit
loading step. The command line chooses which plugins load before it reads anything
(`pypto_core.config.resolution.select_plugins`, `host.load_plugins`).
"""

from __future__ import annotations

from typing import Any

_host: Any = None  # pypto_core.plugins.host, imported on first use (it imports the registries)


def plugins_loaded() -> None:
    """Load the plugins unless they are loaded (or being loaded)."""
    global _host
    if _host is None:
        from pypto_core.plugins import host

        _host = host
    if _host._HOST is None:
        _host.ensure_plugins_loaded()

"""Plugin host: pluggy hookspecs and entry-point loading."""

from pypto_core.plugins.hookspecs import hookimpl, hookspec

__all__ = ["hookimpl", "hookspec"]

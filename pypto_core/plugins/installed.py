"""The installed plugins as entry-point metadata, without importing any (docs/architecture.md, performance).

The plugin host loads what this lists; `pypto --version` shows it as it is, so answering it imports no
plugin, no registry and no numpy.
"""

from __future__ import annotations

import importlib.metadata as md
import sys
from typing import Any

ENTRY_POINT_GROUP = "pypto.plugins"
DISABLE_ENV = "PYPTO_DISABLE_PLUGINS"
OWN_DISTRIBUTION = "pypto"


def plugin_entry_points() -> list[tuple[md.EntryPoint, str]]:
    """Each `pypto.plugins` entry point once, with its distribution (`pypto 0.1.0`), pypto's own first.
    Read once per `sys.path`: parsing a distribution's metadata costs about a millisecond a time."""
    key = tuple(sys.path)
    if _FOUND.get("key") != key:
        _FOUND["key"], _FOUND["entry_points"] = key, _read_entry_points()
    return list(_FOUND["entry_points"])


_FOUND: dict[str, Any] = {}


def _read_entry_points() -> list[tuple[md.EntryPoint, str]]:
    seen: set[tuple[str, str]] = set()
    names: dict[Any, str] = {}  # a distribution's `name version`, by its metadata path: parsed once
    out: list[tuple[md.EntryPoint, str]] = []
    for ep in md.entry_points(group=ENTRY_POINT_GROUP):
        key = (ep.name, ep.value)
        if key in seen:  # the same distribution visible twice on sys.path
            continue
        seen.add(key)
        out.append((ep, _distribution_name(getattr(ep, "dist", None), names)))
    # pypto's own plugins first: a third-party plugin that registers a bundled name is the one
    # reported as the clash, whatever the alphabet says.
    out.sort(key=lambda found: (not found[1].startswith(f"{OWN_DISTRIBUTION} "), found[0].name))
    return out


def _distribution_name(dist: Any, names: dict[Any, str]) -> str:
    if dist is None:
        return "<unknown distribution>"
    key = getattr(dist, "_path", None) or id(dist)
    if key not in names:
        metadata = dist.metadata
        names[key] = f"{metadata['Name']} {metadata['Version']}"
    return names[key]

"""The installed plugins as entry-point metadata, without importing any (docs/architecture.md, performance).

The plugin host loads what this lists; `pypto --version` shows it as it is, so answering it imports no
plugin, no registry and no numpy.
"""

from __future__ import annotations

import importlib.metadata as md

ENTRY_POINT_GROUP = "pypto.plugins"
DISABLE_ENV = "PYPTO_DISABLE_PLUGINS"
OWN_DISTRIBUTION = "pypto"


def plugin_entry_points() -> list[tuple[md.EntryPoint, str]]:
    """Each `pypto.plugins` entry point once, with its distribution (`pypto 0.1.0`), pypto's own first."""
    seen: set[tuple[str, str]] = set()
    out: list[tuple[md.EntryPoint, str]] = []
    for ep in md.entry_points(group=ENTRY_POINT_GROUP):
        key = (ep.name, ep.value)
        if key in seen:  # the same distribution visible twice on sys.path
            continue
        seen.add(key)
        dist = getattr(ep, "dist", None)
        out.append((ep, f"{dist.metadata['Name']} {dist.version}" if dist is not None else "<unknown distribution>"))
    # pypto's own plugins first: a third-party plugin that registers a bundled name is the one
    # reported as the clash, whatever the alphabet says.
    out.sort(key=lambda found: (not found[1].startswith(f"{OWN_DISTRIBUTION} "), found[0].name))
    return out

"""`pypto list passes|pipelines|ops|backends|plugins|properties`: what is registered, and by which plugin."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from rich.table import Table

from pypto_core.cli_commands._common import add_plugin_blocking, blocked_plugins
from pypto_core.cli_commands._console import stdout_console
from pypto_core.cli_commands._errors import EXIT_OK


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("list", help="list registered passes, pipeline presets, ops, backends, plugins "
                                                "or properties")
    parser.add_argument("what", choices=sorted(_LISTERS), help="what to list")
    add_plugin_blocking(parser)
    parser.set_defaults(handler=run_list)


def _host() -> Any:
    from pypto_core.plugins.host import plugin_host

    return plugin_host()


def _table(title: str, *columns: str) -> Table:
    table = Table(title=title)
    for column in columns:
        table.add_column(column)
    return table


def _option_text(cls: Any) -> str:
    parts = []
    for name, info in cls.Options.model_fields.items():
        annotation = getattr(info.annotation, "__name__", None) or str(info.annotation).replace("typing.", "")
        parts.append(f"{name}: {annotation} = {info.default!r}")
    return "\n".join(parts) or "-"


def _passes() -> Table:
    from pypto_core.passes.registry import PASSES

    host = _host()
    table = _table("Passes", "pass", "name", "plugin", "distribution", "requires", "produces", "invalidates",
                   "options")
    for factory, cls in sorted(PASSES.items()):
        owner = PASSES.owner(factory)
        table.add_row(factory, cls.name, owner, host.distribution_of(owner), ", ".join(cls.required) or "-",
                      ", ".join(cls.produced) or "-", ", ".join(cls.invalidated) or "-", _option_text(cls))
    return table


def _pipelines() -> Table:
    """The pipeline presets (`--pipeline NAME`, `preset = "NAME"`): their passes in order."""
    from pypto_core.passes.registry import PIPELINES

    host = _host()
    table = _table("Pipeline presets", "preset", "plugin", "distribution", "passes")
    for name, passes in sorted(PIPELINES.items()):
        owner = PIPELINES.owner(name)
        table.add_row(name, owner, host.distribution_of(owner), ", ".join(passes))
    return table


def _ops() -> Table:
    from pypto_core.ops.registry import op_registry

    host = _host()
    registry = op_registry()
    table = _table("Ops", "op", "plugin", "distribution")
    for name in sorted(registry.ops):
        owner = registry.op_owners[name]
        table.add_row(name, owner, host.distribution_of(owner))
    return table


def _backends() -> Table:
    from pypto_core.backend.registry import BACKENDS
    from pypto_core.backend.selection import DEFAULT_BACKEND

    host = _host()
    table = _table("Backends", "backend", "plugin", "distribution", "capabilities", "core group", "default")
    for name, backend in sorted(BACKENDS.items()):
        owner = BACKENDS.owner(name)
        caps = "\n".join(f"{k} = {str(v).lower()}" for k, v in sorted(backend.capabilities.items()))
        group = backend.core_group
        table.add_row(name, owner, host.distribution_of(owner), caps,
                      f"{group.aic_cores} AIC + {group.aiv_lanes} AIV, FIFO depth {group.default_fifo_depth}",
                      "yes" if name == DEFAULT_BACKEND else "")
    return table


def _registered_text(registered: dict[str, list[str]]) -> str:
    lines = []
    for kind, names in registered.items():
        shown = ", ".join(names[:6]) + (f", ... ({len(names)} in all)" if len(names) > 6 else "")
        lines.append(f"{kind}: {shown}")
    return "\n".join(lines) or "-"


def _plugins() -> Table:
    host = _host()
    table = _table("Plugins", "plugin", "distribution", "status", "registered")
    for rec in host.loaded:
        table.add_row(rec.name, rec.distribution, "loaded", _registered_text(rec.registered))
    for blocked in host.blocked:
        table.add_row(blocked.name, blocked.distribution, "blocked", "-")
    for failure in host.failures:
        table.add_row(failure.name, failure.distribution, f"FAILED ({failure.stage})", failure.message)
    return table


def _properties() -> Table:
    from pypto_core.passes.properties import IRProperty
    from pypto_core.passes.property_sets import STRUCTURAL
    from pypto_core.passes.verifier_registry import PROPERTY_INFO, property_info

    host = _host()
    table = _table("IR properties", "property", "verifier", "plugin", "distribution", "structural", "description")
    for prop in IRProperty:
        info = property_info(prop)
        structural = "yes" if prop.name in STRUCTURAL else ""
        if info is None or info.verifier is None:
            owner = PROPERTY_INFO.owner(prop.name) if info is not None else ""
            table.add_row(prop.name, "declared, unverified", owner or "-",
                          host.distribution_of(owner) if owner else "-", structural,
                          (info.doc if info else "") or prop.doc or "-")
            continue
        owner = PROPERTY_INFO.owner(prop.name)
        table.add_row(prop.name, "verified", owner, host.distribution_of(owner), structural, info.doc or "-")
    return table


_LISTERS: dict[str, Callable[[], Table]] = {
    "passes": _passes, "pipelines": _pipelines, "ops": _ops, "backends": _backends, "plugins": _plugins, "properties": _properties,
}


def run_list(args: argparse.Namespace) -> int:
    blocks = blocked_plugins(args)
    if blocks:
        from pypto_core.config import LoadedConfig, PyptoConfig, apply_plugin_blocks

        apply_plugin_blocks(LoadedConfig(PyptoConfig(), "<command line>"), blocks)
    stdout_console().print(_LISTERS[args.what]())
    return EXIT_OK

"""`pypto list passes|pipelines|ops|backends|plugins|properties|interfaces`: what is registered, and by which
plugin; `pypto list ops NAME...` shows those ops' whole reference.

Each kind is a list of records (one dict per item); the table shows them, `--json` prints them as a JSON
array of objects with the same fields (lists stay lists, option defaults keep their JSON type).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pypto_core.cli_commands._common import add_plugin_blocking, blocked_plugins
from pypto_core.cli_commands._console import columns_from_env, stdout_console
from pypto_core.cli_commands._errors import EXIT_OK, UsageError

if TYPE_CHECKING:
    from rich.table import Table  # rich loads when a table is printed


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("list", help="list registered passes, pipeline presets, ops, backends, plugins "
                                                "or properties",
                                   description="List what the plugins registered, with the plugin and distribution "
                                               "each item came from. Tables take the width of COLUMNS when set.")
    parser.add_argument("what", choices=sorted(_LISTERS), help="what to list")
    parser.add_argument("names", nargs="*", metavar="NAME",
                        help="with `ops`: show these ops' whole reference (signature, kwargs, memory, effects, "
                             "result rule, DSL spellings, plugin)")
    parser.add_argument("--json", action="store_true",
                        help="print a JSON array of objects (one per item, the table's fields) instead of a table")
    add_plugin_blocking(parser)
    parser.set_defaults(handler=run_list)


# A column narrower than this wraps its words one per line: below it a column is better left out.
_MIN_COLUMN = 14
_MAX_WORD = 32  # a longer word (a path) may be folded
_BORDER = 3  # each column's separator and padding in a rich table


@dataclass
class Column:
    header: str
    key: str
    cell: Callable[[Any], str] | None = None  # how the table shows the value (default: `_cell`)
    row: Callable[[dict[str, Any]], str] | None = None  # or: how it shows the record (several fields)
    # The name a user types (a pass, an op): never cut or wrapped, and always shown.
    identifier: bool = False
    # Short values (a plugin, a distribution) shown whole on their line when shown at all.
    whole: bool = False
    # When the table cannot fit the width, columns of lower priority are left out first.
    priority: int = 5

    def text(self, record: dict[str, Any]) -> str:
        if self.row is not None:
            return self.row(record)
        return (self.cell or _cell)(record.get(self.key))

    def needs(self, records: list[dict[str, Any]]) -> int:
        """The width this column needs: an identifier its longest line; any other its longest word (a class
        or op name is never split), at least _MIN_COLUMN, at most _MAX_WORD."""
        lines = [line for r in records for line in self.text(r).splitlines()] + [self.header]
        if self.identifier or self.whole:
            return max(len(line) for line in lines)
        longest_word = max(len(word) for line in lines for word in [*line.split(), ""])
        return min(max(longest_word, _MIN_COLUMN), _MAX_WORD, max(len(line) for line in lines))


@dataclass
class Listing:
    title: str
    columns: list[Column]
    records: list[dict[str, Any]]

    def shown_columns(self, width: int | None) -> list[Column]:
        """The columns that fit `width`: identifiers always, the others by priority (docs/README.md, the
        command line: names are never cut; other columns are left out on a narrow terminal)."""
        shown = list(self.columns)
        if width is None:
            return shown
        while sum(c.needs(self.records) + _BORDER for c in shown) + 1 > width:
            droppable = [c for c in shown if not c.identifier]
            if len(droppable) <= 1 and len(shown) <= 2:
                break
            if not droppable:
                break
            shown.remove(min(droppable, key=lambda c: (c.priority, -self.columns.index(c))))
        return shown

    def table(self, width: int | None = None) -> Table:
        shown = self.shown_columns(width)
        left_out = [c.header for c in self.columns if c not in shown]
        caption = (f"left out at this width: {', '.join(left_out)} (a wider terminal, COLUMNS=N or --json shows them)"
                   if left_out else None)
        from rich.table import Table

        table = Table(title=self.title, caption=caption)
        for column in shown:
            # Fitting a width: each shown column gets what it needs, which the choice above made fit.
            needs = column.needs(self.records) if width is not None else None
            if column.identifier or column.whole:
                table.add_column(column.header, no_wrap=width is not None, min_width=needs)
            else:
                table.add_column(column.header, overflow="fold", min_width=needs)
        for record in self.records:
            table.add_row(*(column.text(record) for column in shown))
        return table


def _cell(value: Any) -> str:
    if value is None or value == [] or value == "":
        return "-"
    if isinstance(value, bool):
        return "yes" if value else ""
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    return str(value)


def _host() -> Any:
    from pypto_core.plugins.host import plugin_host

    return plugin_host()


def _jsonable(value: Any) -> Any:
    """An option default as JSON: the value itself when JSON can hold it, else its repr."""
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return repr(value)
    return value


def _options(cls: Any) -> list[dict[str, Any]]:
    out = []
    for name, info in cls.Options.model_fields.items():
        annotation = getattr(info.annotation, "__name__", None) or str(info.annotation).replace("typing.", "")
        default = info.get_default(call_default_factory=True)
        out.append({"name": name, "type": annotation, "default": _jsonable(default),
                    "description": info.description or ""})
    return out


def _option_cell(options: Any) -> str:
    return "\n".join(f"{o['name']}: {o['type']} = {o['default']!r}" for o in options or []) or "-"


def _description(cls: Any) -> str:
    """A pass's `description`, else the first line of its docstring."""
    text = str(getattr(cls, "description", "") or "").strip()
    if not text:
        text = (cls.__doc__ or "").strip().split("\n\n")[0]
    return " ".join(text.split())


def _passes() -> Listing:
    from pypto_core.passes.registry import PASSES

    host = _host()
    records = []
    for factory, cls in sorted(PASSES.items()):
        owner = PASSES.owner(factory)
        records.append({"pass": factory, "name": cls.name, "plugin": owner,
                        "distribution": host.distribution_of(owner), "description": _description(cls),
                        "requires": list(cls.required), "produces": list(cls.produced),
                        "invalidates": list(cls.invalidated), "options": _options(cls)})
    # One property per line, the description under the class name: what wraps when the table must fit.
    columns = [Column("pass", "pass", identifier=True),
               Column("name / description", "name", row=lambda r: "\n".join(x for x in (r["name"], r["description"]) if x),
                      priority=6),
               Column("plugin", "plugin", whole=True), Column("distribution", "distribution", priority=1, whole=True),
               Column("requires", "requires", _lines, priority=3), Column("produces", "produces", _lines, priority=3),
               Column("invalidates", "invalidates", _lines, priority=2),
               Column("options", "options", _option_cell, priority=4)]
    return Listing("Passes", columns, records)


def _lines(values: Any) -> str:
    return "\n".join(str(v) for v in values or []) or "-"


def _pipelines() -> Listing:
    """The pipeline presets (`--pipeline NAME`, `preset = "NAME"`): their passes in order."""
    from pypto_core.passes.registry import PIPELINES

    host = _host()
    records = []
    for name, passes in sorted(PIPELINES.items()):
        owner = PIPELINES.owner(name)
        records.append({"preset": name, "plugin": owner, "distribution": host.distribution_of(owner),
                        "passes": list(passes)})
    return Listing("Pipeline presets", [Column("preset", "preset", identifier=True), Column("plugin", "plugin", whole=True),
                                        Column("distribution", "distribution", priority=1, whole=True), Column("passes", "passes")], records)


def _op_record(name: str, spellings: list[str], full: bool) -> dict[str, Any]:
    """An op's record: its name, DSL spellings, plugin and distribution; `full` adds its whole reference
    (signature, kwargs with types and defaults, memory, effects, result rule, interfaces)."""
    from pypto_core.ops.registry import op_registry

    registry = op_registry()
    owner = registry.op_owners[name]
    record: dict[str, Any] = {"op": name, "dsl": spellings, "plugin": owner,
                              "distribution": _host().distribution_of(owner)}
    if full:
        from pypto_core.cli_commands.docs import op_reference_rows

        opdef = registry.ops[name]
        record["doc"] = opdef.doc.strip()
        record["result_rule"] = f"{opdef.deduce_type.__module__}.{opdef.deduce_type.__qualname__}"
        record["defined_at"] = opdef.defined_at
        record["reference"] = {key: value.replace("`", "") for key, value in
                               op_reference_rows(name, opdef, owner, spellings)}
    return record


def _ops(names: list[str] | None = None) -> Listing:
    from pypto_core.ops.dsl_index import dsl_spellings
    from pypto_core.ops.registry import op_registry

    registry = op_registry()
    spellings = dsl_spellings()
    chosen = sorted(registry.ops) if not names else names
    records = [_op_record(name, spellings.get(name, []), full=bool(names)) for name in chosen]
    return Listing("Ops", [Column("op", "op", identifier=True), Column("DSL", "dsl", priority=6), Column("plugin", "plugin", whole=True),
                           Column("distribution", "distribution", priority=1, whole=True)], records)


def _op_reference(record: dict[str, Any]) -> Table:
    """One op's whole reference as a two-column table."""
    from rich.table import Table

    table = Table(title=record["op"], show_header=False)
    table.add_column("field", style="bold")
    table.add_column("value")
    if record["doc"]:
        table.add_row("doc", record["doc"])
    for key, value in record["reference"].items():
        table.add_row(key, value.replace("<br>", "\n"))
    table.add_row("result rule", record["result_rule"])
    table.add_row("defined at", record["defined_at"])
    return table


def _unknown_op(name: str) -> UsageError:
    import difflib

    from pypto_core.ops.registry import op_registry

    known = sorted(op_registry().ops)
    close = difflib.get_close_matches(name, known, n=3)
    hint = f"; did you mean {', '.join(repr(c) for c in close)}?" if close else " (`pypto list ops` lists them)"
    return UsageError(f"list ops: no op named '{name}'{hint}")


def _capabilities_cell(caps: Any) -> str:
    return "\n".join(f"{k} = {str(v).lower()}" for k, v in sorted((caps or {}).items())) or "-"


def _group_cell(group: Any) -> str:
    return f"{group['aic_cores']} AIC + {group['aiv_lanes']} AIV, FIFO depth {group['default_fifo_depth']}"


def _backends() -> Listing:
    from pypto_core.backend.registry import BACKENDS
    from pypto_core.backend.selection import DEFAULT_BACKEND

    host = _host()
    records = []
    for name, backend in sorted(BACKENDS.items()):
        owner = BACKENDS.owner(name)
        group = backend.core_group
        records.append({"backend": name, "plugin": owner, "distribution": host.distribution_of(owner),
                        "capabilities": {k: _jsonable(v) for k, v in sorted(backend.capabilities.items())},
                        "core_group": {"aic_cores": group.aic_cores, "aiv_lanes": group.aiv_lanes,
                                       "default_fifo_depth": group.default_fifo_depth},
                        "default": name == DEFAULT_BACKEND})
    columns = [Column("backend", "backend", identifier=True), Column("plugin", "plugin", whole=True), Column("distribution", "distribution", priority=1, whole=True),
               Column("capabilities", "capabilities", _capabilities_cell),
               Column("core group", "core_group", _group_cell), Column("default", "default")]
    return Listing("Backends", columns, records)


def _registered_cell(registered: Any) -> str:
    lines = []
    for kind, names in (registered or {}).items():
        shown = ", ".join(names[:6]) + (f", ... ({len(names)} in all)" if len(names) > 6 else "")
        lines.append(f"{kind}: {shown}")
    return "\n".join(lines) or "-"


def _plugins() -> Listing:
    host = _host()
    records: list[dict[str, Any]] = []
    for rec in host.loaded:
        records.append({"plugin": rec.name, "distribution": rec.distribution, "status": "loaded",
                        "registered": {k: list(v) for k, v in rec.registered.items()}, "reason": ""})
    for blocked in host.blocked:
        records.append({"plugin": blocked.name, "distribution": blocked.distribution, "status": "blocked",
                        "registered": {}, "reason": getattr(blocked, "reason", "blocked")})
    for failure in host.failures:
        records.append({"plugin": failure.name, "distribution": failure.distribution,
                        "status": f"FAILED ({failure.stage})", "registered": {}, "reason": failure.message})

    def registered_or_reason(record: dict[str, Any]) -> str:
        return record["reason"] if record["status"].startswith("FAILED") else _registered_cell(record["registered"])

    return Listing("Plugins", [Column("plugin", "plugin", identifier=True), Column("distribution", "distribution", priority=1, whole=True),
                               Column("status", "status"), Column("registered", "registered", row=registered_or_reason)],
                   records)


def _properties() -> Listing:
    from pypto_core.passes.properties import IRProperty
    from pypto_core.passes.property_sets import STRUCTURAL
    from pypto_core.passes.verifier_registry import PROPERTY_INFO, property_info

    host = _host()
    records = []
    for prop in IRProperty:
        info = property_info(prop)
        owner = PROPERTY_INFO.owner(prop.name) if info is not None else ""
        verified = info is not None and info.verifier is not None
        records.append({"property": prop.name, "verified": verified, "plugin": owner or "",
                        "distribution": host.distribution_of(owner) if owner else "",
                        "structural": prop.name in STRUCTURAL,
                        "description": (info.doc if info else "") or prop.doc or ""})
    columns = [Column("property", "property", identifier=True),
               Column("verifier", "verified", lambda v: "verified" if v else "declared, unverified"),
               Column("plugin", "plugin", whole=True), Column("distribution", "distribution", priority=1, whole=True),
               Column("structural", "structural"), Column("description", "description")]
    return Listing("IR properties", columns, records)


def _interfaces() -> Listing:
    """The op interfaces passes declare (docs/plugins.md, op interfaces), with how many ops implement each; an
    implementation registered under a name no loaded plugin declares is listed as undeclared."""
    from pypto_core.ops.registry import op_registry

    registry = op_registry()
    records = []
    for name in sorted(set(registry.interfaces) | set(registry.impls)):
        declared = registry.interfaces.get(name)
        owner = registry.interface_places[name].owner if declared is not None else ""
        implementers = sorted(registry.impls.get(name, {}))
        records.append({"interface": name, "declared_by": owner or "(undeclared)",
                        "implementations": len(implementers), "ops": implementers,
                        "implementation": declared.doc if declared is not None else "",
                        "without_one": declared.missing if declared is not None else ""})
    columns = [Column("interface", "interface", identifier=True), Column("declared by", "declared_by"),
               Column("ops", "implementations"), Column("an implementation", "implementation"),
               Column("without one", "without_one")]
    return Listing("Op interfaces", columns, records)


_LISTERS: dict[str, Callable[[], Listing]] = {
    "passes": _passes, "pipelines": _pipelines, "ops": _ops, "backends": _backends, "plugins": _plugins,
    "properties": _properties, "interfaces": _interfaces,
}


def run_list(args: argparse.Namespace) -> int:
    blocks = blocked_plugins(args)
    if blocks:
        from pypto_core.config import LoadedConfig, PyptoConfig, select_plugins

        select_plugins(LoadedConfig(PyptoConfig(), "<command line>"), blocks)
    names = list(getattr(args, "names", []) or [])
    if names and args.what != "ops":
        raise UsageError(f"list {args.what}: takes no names (only `pypto list ops NAME...` shows one item)")
    if names:
        from pypto_core.ops.registry import op_registry

        for name in names:
            if name not in op_registry().ops:
                raise _unknown_op(name)
        listing = _ops(names)
    else:
        listing = _LISTERS[args.what]()
    if getattr(args, "json", False):
        sys.stdout.write(json.dumps(listing.records, indent=2, ensure_ascii=False) + "\n")
    elif names:
        for record in listing.records:
            stdout_console().print(_op_reference(record))
    else:
        console = stdout_console()
        # Fit a terminal or the COLUMNS asked for; a pipe has no width to fit, so it gets every column.
        fit = columns_from_env() or (console.width if sys.stdout.isatty() else None)
        console.print(listing.table(fit))
    return EXIT_OK

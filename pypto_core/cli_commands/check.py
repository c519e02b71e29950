"""`pypto check [pypto.toml]`: validate a configuration and its pipeline without compiling anything."""

from __future__ import annotations

import argparse
from typing import Any

from pypto_core.cli_commands._common import add_plugin_blocking, blocked_plugins
from pypto_core.cli_commands._console import stdout_console
from pypto_core.cli_commands._errors import EXIT_OK


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("check", help="validate pypto.toml and its pipeline",
                                   description="Check every key and name of a configuration, and that each "
                                               "pass's required properties hold where it runs.")
    parser.add_argument("config", nargs="?", help="configuration file (default: ./pypto.toml, else defaults)")
    parser.add_argument("--pipeline", metavar="S", help="check this pipeline instead of the file's")
    add_plugin_blocking(parser)
    parser.set_defaults(handler=run_check)


def _props(props: Any) -> str:
    return ", ".join(str(p) for p in props) or "-"


def run_check(args: argparse.Namespace) -> int:
    from rich.table import Table  # loaded for the table, not with the command line

    from pypto_core.config import CliOverrides, load_config, resolve_config
    from pypto_core.passes.manager import PassManager

    resolved = resolve_config(load_config(args.config),
                              CliOverrides(pipeline=args.pipeline, disable_plugins=blocked_plugins(args)))
    PassManager(resolved.passes).check()  # raises PipelineCheckError naming pass and property
    table = Table(title=f"Pipeline ({resolved.pipeline_origin})")
    for column in ("#", "pass", "name", "requires", "produces", "invalidates", "options"):
        table.add_column(column)
    for i, p in enumerate(resolved.passes, 1):
        options = ", ".join(f"{k}={v!r}" for k, v in p.options.model_dump().items()) or "-"
        table.add_row(str(i), p.factory_name, p.get_name(), _props(p.get_required_properties()),
                      _props(p.get_produced_properties()), _props(p.get_invalidated_properties()), options)
    console = stdout_console()
    console.print(table)
    console.print(f"OK: {resolved.source}: backend {resolved.backend}, verify {resolved.verify}, "
                  f"{len(resolved.passes)} pass(es); every required property holds where it is needed.")
    return EXIT_OK

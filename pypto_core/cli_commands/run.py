"""`pypto run FILE`: execute a program as written and as compiled on the numpy reference machine,
on the same deterministic inputs, and compare every output (docs/architecture.md, the walk of one program).

Exit codes: 0 every output matches, 1 a mismatch (or a rejected program / configuration).
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from collections.abc import Iterator
from typing import Any

from pypto_core.cli_commands._common import (
    add_pipeline_options,
    add_plugin_blocking,
    blocked_plugins,
    read_program_source,
)
from pypto_core.cli_commands._errors import EXIT_OK, EXIT_REJECTED

INPUT_PREFIX, OUTPUT_PREFIX, EXPECTED_PREFIX = "input.", "output.", "expected."


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "run", help="run a program before and after the pipeline on the reference machine and compare",
        description="Parse FILE (never executed as Python), compile it with the pipeline from pypto.toml or "
                    "--pipeline, execute both the input and the compiled program on the numpy reference "
                    "machine with the same inputs and compare every output and Out/InOut parameter.")
    parser.add_argument("file", help="a .py file holding one @pl.program or @pl.function")
    parser.add_argument("--entry", metavar="NAME", help="function to run (default: the one nothing calls)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random inputs (default: 0)")
    add_pipeline_options(parser)
    parser.add_argument("--inputs", metavar="FILE.npz", help="inputs by parameter name (missing ones are generated)")
    parser.add_argument("--save", metavar="OUT.npz", help="write the inputs, expected and actual outputs here")
    parser.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                        help="one line per stage (compile, run as written, run compiled) with its time on "
                             "stderr, and each pass and check-run execution of the compile (default: when "
                             "stderr is a terminal)")
    add_plugin_blocking(parser)
    parser.set_defaults(handler=run_command)


def load_inputs(path: str, names: list[str]) -> dict[str, Any]:
    """Arrays of an .npz by parameter name; a file written by --save gives its `input.<name>` arrays."""
    import numpy as np  # only `pypto run` needs numpy: other commands start without it

    with np.load(path) as data:
        saved = any(k.startswith(INPUT_PREFIX) for k in data.files)
        found = {k.removeprefix(INPUT_PREFIX): data[k] for k in data.files
                 if not saved or k.startswith(INPUT_PREFIX)}
    unknown = sorted(set(found) - set(names))
    if unknown:
        raise ValueError(f"{path}: no parameter named {', '.join(unknown)} (parameters: {', '.join(names)})")
    return {k: (v[()] if v.ndim == 0 else v) for k, v in found.items()}


def run_command(args: argparse.Namespace) -> int:
    from pypto_core.config import CliOverrides, build_pass_manager, load_config, resolve_config
    from pypto_core.interp import Machine, compare_outputs, make_inputs, run_program, shape_from_backend
    from pypto_core.interp.inputs import param_names
    from pypto_core.ir.function import as_program
    from pypto_core.language.api import parse

    overrides = CliOverrides(pipeline=args.pipeline, backend=args.backend, verify=args.verify,
                             disable_plugins=blocked_plugins(args))
    resolved = resolve_config(load_config(args.config), overrides)
    progress = Progress(sys.stderr.isatty() if args.progress is None else args.progress)
    program = as_program(parse(read_program_source(args.file), args.file))
    with progress.stage(f"compiling with {len(resolved.passes)} passes"):
        compiled = build_pass_manager(resolved, stream=sys.stderr, progress=progress.enabled).run(program)

    shape = shape_from_backend(resolved.backend)
    entry = Machine(program, shape=shape).entry_function(args.entry)
    inputs = make_inputs(entry, args.seed)
    generated = list(inputs)
    if args.inputs:
        given = load_inputs(args.inputs, param_names(entry))
        inputs.update(given)
        generated = [n for n in generated if n not in given]
    with progress.stage(f"running {entry.name} as written"):
        expected = run_program(program, inputs, entry.name, shape)
    with progress.stage(f"running {entry.name} compiled"):
        actual = run_program(compiled, inputs, entry.name, shape)
    checks = compare_outputs(expected, actual)

    _print_table(args.file, entry.name, resolved, checks, generated if args.inputs else [])
    _print_memory_use(compiled, resolved.backend)
    if args.save:
        import numpy as np

        arrays = {f"{INPUT_PREFIX}{k}": np.asarray(v) for k, v in inputs.items()}
        arrays.update({f"{EXPECTED_PREFIX}{k}": np.asarray(v) for k, v in expected.items()})
        arrays.update({f"{OUTPUT_PREFIX}{k}": np.asarray(v) for k, v in actual.items()})
        np.savez(args.save, **arrays)
    return EXIT_OK if all(c.comparison.ok for c in checks) else EXIT_REJECTED


def _print_table(file: str, entry: str, resolved: Any, checks: list[Any], generated: list[str]) -> None:
    from rich.table import Table

    from pypto_core.cli_commands._console import print_note, stdout_console

    passes = ", ".join(getattr(p, "factory_name", "") or p.get_name() for p in resolved.passes) or "no passes"
    table = Table(title=f"{file}: {entry} as written vs. after {passes} ({resolved.backend})")
    for column in ("output", "shape", "dtype", "max abs error", "verdict"):
        table.add_column(column, justify="right" if column == "max abs error" else "left")
    for check in checks:
        c = check.comparison
        verdict = "ok" if c.ok else f"MISMATCH: {c.describe()}"
        if c.ok and c.poisoned:
            verdict += f" ({c.poisoned} element(s) never written)"
        table.add_row(check.label, str(list(check.shape)), check.dtype, f"{c.max_abs_error:.3g}", verdict)
    stdout_console().print(table)
    if generated:
        print_note(f"generated inputs for: {', '.join(generated)}")
    failed = [c.label for c in checks if not c.comparison.ok]
    if failed:
        from pypto_core.cli_commands._console import print_error

        print_error(f"{len(failed)} of {len(checks)} output(s) differ: {', '.join(failed)}", "mismatch")


def _print_memory_use(program: Any, backend_name: str) -> None:
    """Each placed kernel's bytes per on-chip space against the backend's capacity (docs/memory_planning.md,
    the memory table); nothing when no kernel carries addresses yet."""
    from rich.table import Table

    from pypto_core.analysis.memory_use import memory_use
    from pypto_core.backend.registry import get_backend
    from pypto_core.cli_commands._console import stdout_console

    rows = memory_use(program, get_backend(backend_name))
    if not rows:
        return
    table = Table(title=f"on-chip memory per kernel ({backend_name})")
    for column in ("kernel", "space", "used bytes", "capacity", "used"):
        table.add_column(column, justify="left" if column in ("kernel", "space") else "right")
    for row in rows:
        share = f"{row.fraction:.1%}" if row.fraction is not None else "unbounded"
        table.add_row(row.kernel, row.space.name, str(row.used), str(row.capacity) if row.capacity else "-",
                      share if row.fits else f"{share} OVER")
    stdout_console().print(table)


class Progress:
    """`pypto run: <stage> ... 1.23 s` lines on stderr, so a long run shows where it is."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled

    @contextlib.contextmanager
    def stage(self, what: str) -> Iterator[None]:
        if not self.enabled:
            yield
            return
        # Whole lines: the compile stage's passes report their own lines in between.
        print(f"pypto run: {what} ...", file=sys.stderr, flush=True)
        start = time.perf_counter()
        try:
            yield
        finally:
            print(f"pypto run: {what}: {time.perf_counter() - start:.2f} s", file=sys.stderr, flush=True)

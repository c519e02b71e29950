"""The PassManager a resolved configuration describes."""

from __future__ import annotations

from typing import Any

from pypto_core.config.resolution import ResolvedConfig


def build_pass_manager(resolved: ResolvedConfig, stream: Any = None, progress: bool | None = False) -> Any:
    """The PassManager a resolved configuration describes (dumps and prints go to `stream`; `progress`: show
    each pass on stderr, None for "when stderr is a terminal")."""
    from pypto_core.passes.instruments.assemble import OutputOptions
    from pypto_core.passes.manager import PassManager

    dump = resolved.dump
    outputs = OutputOptions(dump_dir=dump.dir, print_after_all=dump.print_after_all, print_after=dump.print_after,
                            print_before_all=dump.print_before_all, print_before=dump.print_before,
                            print_changed=dump.changed_mode(), filter_func=dump.filter_func, timing=dump.timing,
                            stream=stream, progress=progress)
    return PassManager(resolved.passes, backend=resolved.backend, verify=resolved.verify, outputs=outputs)

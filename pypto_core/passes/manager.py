"""The PassManager: runs a configured pipeline (docs/architecture.md, the pass manager).

It is what `pypto compile`, `pypto run`, `pypto trace` and the reducer use: the passes, the backend, the
verification level and the outputs of a run (dumps, prints, timing). `run` assembles the run's
instruments (instruments/assemble.py) and hands the passes to the one run loop (runner.py): the static
pipeline check and, unless the level is `none`, property verification on the input and after every
pass, the round trip at `roundtrip`, the reference machine at `check-run`.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from typing import Any, TextIO

from pypto_core.passes.context import PassContext
from pypto_core.passes.instruments.assemble import OutputOptions, assemble
from pypto_core.passes.instruments.pipeline_checks import InputVerificationError, PassVerificationError
from pypto_core.passes.memory_planner import active_memory_planner, check_planner, passes_for_planner
from pypto_core.passes.naming import pass_origin
from pypto_core.passes.runner import FailedStep, failed_step, run_pipeline
from pypto_core.passes.static_check import PipelineAnalysis, check_pipeline, program_input
from pypto_core.passes.verification_level import VerificationLevel

# Re-exported: what callers of a PassManager catch and inspect.
__all__ = ["FailedStep", "InputVerificationError", "PassManager", "PassVerificationError", "failed_step",
           "pass_origin"]


class PassManager:
    def __init__(self, passes: Sequence[Any], *, backend: str | None = None,
                 verify: str | VerificationLevel = "basic", instruments: Sequence[Any] = (),
                 timing: bool = False, timing_stream: TextIO | None = None,
                 outputs: OutputOptions | None = None) -> None:
        # The memory planner in force now decides which memory passes the pipeline keeps (docs/memory_planning.md).
        self.memory_planner = active_memory_planner()
        self.passes = passes_for_planner(list(passes), self.memory_planner)
        self.backend = backend
        self.level = VerificationLevel.of(verify)
        self.instruments = list(instruments)
        base = outputs or OutputOptions()
        self.outputs = OutputOptions(**{**base.__dict__, "timing": base.timing or timing,
                                        "stream": base.stream or timing_stream})

    @property
    def verify(self) -> str:
        """The verification level's spelling (`basic`)."""
        return self.level.text

    def get_pass_names(self) -> list[str]:
        return [p.get_name() for p in self.passes]

    def check(self, program: Any = None) -> PipelineAnalysis:
        """The static check; with a program, properties the input must have are verified on it."""
        if program is None:
            return check_pipeline(self.passes)
        return check_pipeline(self.passes, program_input(program))

    def run(self, program: Any) -> Any:
        check_planner(self.memory_planner)
        extra = list(self.instruments)
        progress = self.outputs.progress
        if progress or (progress is None and sys.stderr.isatty()):
            from pypto_core.passes.instruments.progress import ProgressInstrument

            extra.insert(0, ProgressInstrument(len(self.passes)))
        assembly = assemble(self.level, outputs=self.outputs, extra=extra)
        outer = PassContext.current() or PassContext()
        start = time.perf_counter()
        with outer.extended(assembly.context, self.level, self.backend) as ctx:
            try:
                program = run_pipeline(self.passes, program, assembly.checks)
            finally:  # a progress display is closed when a pass fails too
                for inst in assembly.context:
                    inst.finish_run(program)
        if assembly.timing is not None:
            from rich.console import Console

            table = assembly.timing.table(ctx.instrument_seconds, time.perf_counter() - start)
            Console(file=self.outputs.stream or sys.stderr).print(table)
        return program

"""TraceInstrument: record, for every pass of a pipeline, the program it produced (as `pl` text), the
transform's time and the time the checks after it took (verification, round trip, check-run), and what
the check-run instrument of the context knew after it. `pypto trace` (pypto_core/trace/) turns the
records into an HTML page.

Only the outermost passes are recorded: a pass that runs passes itself is one step of the pipeline.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pypto_core.passes.instruments.base import PassInstrument
from pypto_core.passes.naming import pass_label

CHECK_RUN_INSTRUMENT = "CheckRunInstrument"


@dataclass
class PassRecord:
    """What one pass of the pipeline did."""

    step: int  # 0-based position in the pipeline
    label: str  # the factory name users write (`convert_to_ssa`)
    name: str  # the class-level name (`ConvertToSSA`)
    options: str  # `repr` of the pass: its factory name with its options
    seconds: float  # the transform alone
    text: str  # the program after the pass, as pl text
    same_object: bool  # the pass returned its input object (check-run does not rerun it)
    finished_at: float = 0.0  # perf_counter when the pass returned
    checks_seconds: float | None = None  # from the pass's return to the next pass (or the end)
    check_run_outputs: list[str] | None = None  # outputs check-run compared after the pass, if it ran
    nested_passes: int = 0  # passes this pass ran itself
    memory: list[Any] | None = None  # SpaceUse rows of the placed kernels after the pass (analysis/memory_use.py)


def _memory_use(program: Any, ctx: Any) -> list[Any]:
    """The program's placed kernels' bytes per space (none before memory planning)."""
    from pypto_core.analysis.memory_use import memory_use
    from pypto_core.ir.function import Program

    if not isinstance(program, Program):
        return []
    return memory_use(program, ctx.backend if ctx is not None else None)


def _default_render(program: Any) -> str:
    from pypto_core.language.printer import python_print

    return python_print(program)


def _find_check_run(ctx: Any) -> Any:
    """The check-run instrument of the context, if verify = "check-run"."""
    if ctx is None:
        return None
    for inst in ctx.get_instruments():
        if getattr(inst, "name", "") == CHECK_RUN_INSTRUMENT:
            return inst
    return None


def _reference_outputs(check_run: Any) -> list[str] | None:
    """The outputs check-run holds as its reference now (None when check-run is off)."""
    if check_run is None:
        return None
    outputs = getattr(check_run, "_outputs", None)
    return sorted(outputs) if isinstance(outputs, dict) else []


@dataclass(repr=False, eq=False)
class TraceInstrument(PassInstrument):
    """Records each outermost pass (module docstring); `progress(record, total)` is called after each."""

    total: int | None = None
    progress: Callable[[PassRecord, int | None], None] | None = None
    render: Callable[[Any], str] = _default_render
    name: str = "TraceInstrument"
    timing_label: str | None = "trace"
    input_text: str | None = None
    records: list[PassRecord] = field(default_factory=list)
    check_run_active: bool = False
    _depth: int = 0
    _nested: int = 0
    _started: float = 0.0
    _given: Any = None
    _check_run: Any = None

    def before_pass(self, p: Any, program: Any) -> None:
        if self._depth == 0:
            from pypto_core.passes.context import PassContext

            if self._check_run is None:
                self._check_run = _find_check_run(PassContext.current())
                self.check_run_active = self._check_run is not None
            if self.input_text is None:
                self.input_text = self.render(program)
            self._close_previous()
            self._nested = 0
            self._given = program
            self._started = time.perf_counter()
        else:
            self._nested += 1
        self._depth += 1

    def after_pass(self, p: Any, program: Any) -> None:
        self._depth = max(self._depth - 1, 0)
        if self._depth:
            return
        from pypto_core.passes.context import PassContext

        ctx = PassContext.current()
        seconds = ctx.last_run_seconds if ctx is not None else time.perf_counter() - self._started
        record = PassRecord(step=len(self.records), label=pass_label(p), name=p.get_name(), options=repr(p),
                            seconds=seconds, text=self.render(program), same_object=program is self._given,
                            nested_passes=self._nested, memory=_memory_use(program, ctx))
        self._given = None
        self.records.append(record)
        if self.progress is not None:
            self.progress(record, self.total)
        record.finished_at = time.perf_counter()

    def _close_previous(self) -> None:
        """The checks of the previous pass are over: note their time and what check-run compared."""
        if not self.records or self.records[-1].checks_seconds is not None:
            return
        last = self.records[-1]
        last.checks_seconds = max(time.perf_counter() - last.finished_at, 0.0)
        last.check_run_outputs = _reference_outputs(self._check_run)

    def finish(self) -> None:
        """Call once the pipeline has returned or raised: closes the last pass's record."""
        self._close_previous()

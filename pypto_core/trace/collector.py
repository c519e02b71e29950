"""Run a pipeline with a TraceInstrument and gather, per pass: the program after it, its time, the
properties verified after it (the ones the PassManager checks: what the pass produces, the structural
properties and what the next pass requires, where they hold and have a verifier), its check-run verdict,
and, when the run failed, where and why.

A failing run is traced too: the passes up to the failure are recorded, the failing one carries the
error, and the ones after it are "not run". `Trace.exception` keeps the exception for the caller.
"""

from __future__ import annotations

import datetime
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from pypto_core.passes.instruments.pipeline_checks import properties_after
from pypto_core.passes.instruments.trace import PassRecord, TraceInstrument
from pypto_core.passes.naming import pass_label
from pypto_core.trace.diff import changed_sections, count_changes, function_names

Verdict = Literal["ok", "failed", "off", "not run", "unchanged"]


@dataclass
class TraceStep:
    """One pass of the pipeline, as the trace page shows it."""

    index: int  # 1-based step number (0 is the input)
    label: str
    name: str
    options: str
    required: list[str] = field(default_factory=list)
    produced: list[str] = field(default_factory=list)
    invalidated: list[str] = field(default_factory=list)
    ran: bool = False
    text: str | None = None  # the program after the pass
    seconds: float | None = None
    checks_seconds: float | None = None
    changed: bool | None = None
    added: int = 0
    removed: int = 0
    changed_functions: list[str] = field(default_factory=list)
    verified: list[str] = field(default_factory=list)  # properties verified after the pass
    verification: Verdict = "off"
    check_run: Verdict = "off"
    check_run_detail: str = ""
    error: str | None = None
    nested_passes: int = 0
    memory: list[Any] = field(default_factory=list)  # SpaceUse rows after the pass (a bar per space on the page)


@dataclass
class Trace:
    source: str
    program_name: str
    backend: str
    verify: str
    input_text: str
    steps: list[TraceStep]
    created: str = ""
    total_seconds: float = 0.0
    error: str | None = None  # why the run failed (None: it completed)
    error_step: int | None = None  # the 1-based step that failed; 0 = before any pass (input, static check)
    exception: BaseException | None = None

    @property
    def functions(self) -> list[str]:
        """Every function name that appears in some program of the trace, in first-seen order."""
        names: dict[str, None] = dict.fromkeys(function_names(self.input_text))
        for step in self.steps:
            names.update(dict.fromkeys(function_names(step.text)))
        return list(names)


ProgressFn = Callable[[TraceStep, int], None]


def _props(values: Any) -> list[str]:
    return sorted(str(v) for v in values)


def _analysis(manager: Any, program: Any) -> Any:
    try:
        return manager.check(program)
    except Exception:  # noqa: BLE001 - the run itself reports a pipeline that cannot run
        return None


def _first_line(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def collect_trace(program: Any, manager: Any, *, source: str = "", backend: str = "",
                  progress: ProgressFn | None = None) -> Trace:
    """Run `manager` (a PassManager) on `program` with a TraceInstrument; never raises for a failing run
    (the error is in the Trace, the exception in `Trace.exception`)."""
    from pypto_core.ir.function import as_program
    from pypto_core.passes.runner import failed_step

    program = as_program(program)
    passes = list(manager.passes)
    steps = [TraceStep(i + 1, pass_label(p), p.get_name(), repr(p), _props(p.get_required_properties()),
                       _props(p.get_produced_properties()), _props(p.get_invalidated_properties()))
             for i, p in enumerate(passes)]

    def on_record(record: PassRecord, total: int | None) -> None:
        if progress is None or record.step >= len(steps):
            return
        step = steps[record.step]
        previous = instrument.records[record.step - 1].text if record.step else instrument.input_text
        step.changed = record.text != previous
        step.seconds = record.seconds
        progress(step, len(steps))

    instrument = TraceInstrument(total=len(passes), progress=on_record)
    manager.instruments.append(instrument)
    verify = str(manager.verify)
    analysis = _analysis(manager, program) if verify != "none" else None
    exception: BaseException | None = None
    start = time.perf_counter()
    try:
        manager.run(program)
    except Exception as exc:  # noqa: BLE001 - the trace shows it; the caller re-raises
        exception = exc
    finally:
        instrument.finish()
        manager.instruments.remove(instrument)
    total = time.perf_counter() - start

    from pypto_core.language.printer import python_print

    input_text = instrument.input_text if instrument.input_text is not None else python_print(program)
    failing = failed_step(exception) if exception is not None else None
    error_step: int | None = None
    if exception is not None:
        error_step = failing.step + 1 if failing is not None else (len(instrument.records) + 1
                                                                    if instrument.records else 0)
    check_run = instrument.check_run_active or verify == "check-run"
    previous = input_text
    for i, step in enumerate(steps):
        record = instrument.records[i] if i < len(instrument.records) else None
        if record is not None:
            step.ran = True
            step.text = record.text
            step.seconds = record.seconds
            step.checks_seconds = record.checks_seconds
            step.changed = record.text != previous
            step.added, step.removed = count_changes(previous, record.text)
            step.changed_functions = changed_sections(previous, record.text)
            step.nested_passes = record.nested_passes
            step.memory = list(record.memory or [])
            previous = record.text
        failed_here = error_step == step.index
        reached = step.ran and (error_step is None or step.index <= error_step)
        if verify != "none":
            step.verified = properties_after(passes, analysis, i) if analysis is not None else []
            step.verification = "not run" if not reached else "ok"
        if check_run:
            step.check_run = "not run" if not reached else ("unchanged" if record and record.same_object else "ok")
            if record is not None and record.check_run_outputs and step.check_run == "ok":
                step.check_run_detail = f"outputs match: {', '.join(record.check_run_outputs)}"
            elif step.check_run == "unchanged":
                step.check_run_detail = "the pass returned its input: nothing to rerun"
        if failed_here and exception is not None:
            step.error = _first_line(exception)
            _blame(step, exception, verify, check_run)
        elif error_step is not None and step.index > error_step:
            step.verification = "not run" if verify != "none" else "off"
            step.check_run = "not run" if check_run else "off"
    name = getattr(program, "name", "") or "Program"
    return Trace(source=source, program_name=name, backend=backend or str(manager.backend or ""), verify=verify,
                 input_text=input_text, steps=steps,
                 created=datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M:%S %Z"),
                 total_seconds=total, error=_first_line(exception) if exception is not None else None,
                 error_step=error_step, exception=exception)


def _blame(step: TraceStep, exc: BaseException, verify: str, check_run: bool) -> None:
    """Which verdict of the failing pass the exception is (a crash leaves the pass without output)."""
    from pypto_core.passes.instruments.pipeline_checks import PassVerificationError

    try:
        from pypto_core.interp.errors import CheckRunError
    except ImportError:  # pragma: no cover - the reference machine is part of the core today
        CheckRunError = ()  # type: ignore[assignment,misc]  # noqa: N806
    if isinstance(exc, CheckRunError):
        step.check_run = "failed"
        step.check_run_detail = str(exc)
        if verify != "none":
            step.verification = "not run"
    elif isinstance(exc, PassVerificationError):
        step.verification = "failed"
    elif step.ran:  # the round trip, or another check after the transform
        if verify != "none":
            step.verification = "failed"
        if check_run:
            step.check_run = "not run"
    else:  # the transform itself raised
        step.verification = "not run" if verify != "none" else "off"
        step.check_run = "not run" if check_run else "off"


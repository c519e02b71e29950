"""The one run loop of a pipeline (docs/architecture.md, the pass manager).

Every way of running passes comes here: the PassManager (`pypto compile`, `pypto run`, `pypto trace`,
the reducer), PyPTO's `PassPipeline` and `pypto.ir.pass_manager.PassManager`. The loop itself holds no
policy: the active PassContext's instruments fire around each transform (a plain `p(program)` does
the same), and the pipeline instruments given to the loop check between steps. What a failing step
was doing is noted on the exception (`failed_step(exc)`) for the crash reproducer.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pypto_core.collector import pauses_collector
from pypto_core.errors import InternalError, VerificationError
from pypto_core.ir.function import as_program
from pypto_core.passes.context import PassContext, run_pass
from pypto_core.passes.instruments.pipeline_checks import PipelineInstrument
from pypto_core.passes.naming import pass_label, pass_origin


@dataclass
class FailedStep:
    """Where a run failed: the step, its pass, the program the pass was given, the pipeline, and the backend
    and verification level it ran with (for the crash reproducer)."""

    step: int
    pass_: Any
    program: Any
    passes: list[Any]
    backend: str | None
    verify: str

    @property
    def remaining_passes(self) -> list[Any]:
        return self.passes[self.step:]


_FAILED_STEP_ATTR = "_pypto_failed_step"


def failed_step(exc: BaseException) -> FailedStep | None:
    """The step of the pipeline run that raised `exc`, when a pass (or the checks after it) raised it."""
    return getattr(exc, _FAILED_STEP_ATTR, None)


def _note_failed_step(exc: BaseException, failed: FailedStep) -> None:
    if getattr(exc, _FAILED_STEP_ATTR, None) is None:  # the innermost run knows the failing pass
        try:
            setattr(exc, _FAILED_STEP_ATTR, failed)
        except (AttributeError, TypeError):  # an exception type that takes no attributes
            pass


def run_guarded(p: Any, program: Any) -> Any:
    """Run one pass with the context's instruments; a crash inside it becomes an InternalError naming the
    pass and its plugin (a rejected program, or an error that already says what broke, passes through)."""
    try:
        return run_pass(p, program)
    except (ValueError, VerificationError, InternalError):
        raise
    except Exception as exc:
        owner, dist = pass_origin(p)
        raise InternalError(f"pass '{pass_label(p)}' ({p.get_name()}, from plugin '{owner}' / {dist}) "
                            f"failed: {type(exc).__name__}: {exc}") from exc


def _timed_check(ctx: PassContext | None, check: Any, hook: Any, *args: Any) -> None:
    """Run a pipeline check's hook, adding its time to the check's `--timing` row."""
    start = time.perf_counter()
    try:
        hook(*args)
    finally:
        if ctx is not None:
            ctx.account(getattr(check, "timing_label", "verification"), time.perf_counter() - start)


@pauses_collector
def run_pipeline(passes: Sequence[Any], program: Any,
                 checks: Sequence[PipelineInstrument] = ()) -> Any:
    """Run `passes` in order in the active PassContext; `checks` see the input and every step."""
    program = as_program(program)
    passes = list(passes)
    ctx = PassContext.current()
    for check in checks:
        _timed_check(ctx, check, check.enter, passes, program)
    for step, p in enumerate(passes):
        given = program
        try:
            program = run_guarded(p, given)
            for check in checks:
                _timed_check(ctx, check, check.after_step, step, p, given, program)
        except Exception as exc:
            level = ctx.get_verification_level().text if ctx is not None else "basic"
            _note_failed_step(exc, FailedStep(step, p, given, passes, ctx.backend_name if ctx else None, level))
            raise
    return program

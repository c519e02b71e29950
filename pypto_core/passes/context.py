"""PassContext and running a pass with the active context's instruments (docs/architecture.md, the pass manager).

Contexts form a thread-local stack; the innermost one alone is in force (it hides outer ones). A
plain call `p(program)` fires that context's instruments around the transform; verification is
done by PassPipeline / the PassManager, not by a plain call.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pypto_core.collector import pauses_collector
from pypto_core.ir.function import as_program
from pypto_core.passes.verification_level import VerificationLevel, level_from_env

if TYPE_CHECKING:
    from pypto_core.backend.backend import Backend
    from pypto_core.ir.function import Program
    from pypto_core.passes.pass_base import Pass

_LOCAL = threading.local()


def _stack() -> list[PassContext]:
    stack = getattr(_LOCAL, "stack", None)
    if stack is None:
        stack = _LOCAL.stack = []
    return stack


def _backend_name(backend: Any) -> str | None:
    """A backend given as a name, a Backend object or a pypto.backend.BackendType member."""
    if backend is None or isinstance(backend, str):
        return backend
    return str(getattr(backend, "name", backend))


class PassContext:
    """The context passes run in: instruments, verification level, backend, and PyPTO's planning options.

    `memory_planner` (PyPTO's `passes.MemoryPlanner`; None means PyPTO's default planner) and
    `enable_pypto_l0c_double_buffer` are the planning options for the matmul-tiling and memory-planning passes,
    read through their getters; `diagnostic_phase`,
    `disabled_diagnostics` and `runtime` are PyPTO options pypto's passes have no use for: they are kept so
    that PyPTO programs and tests that pass them run unchanged, and returned by their getters.
    """

    def __init__(self, instruments: Sequence[Any] = (), verification_level: VerificationLevel | None = None,
                 diagnostic_phase: Any = None, disabled_diagnostics: Any = None, memory_planner: Any = None,
                 enable_pypto_l0c_double_buffer: bool = False, runtime: Any = None,
                 backend: Any = None) -> None:
        self.instruments = list(instruments)
        self._verification_level = verification_level
        self.diagnostic_phase = diagnostic_phase
        self.disabled_diagnostics = disabled_diagnostics
        self.memory_planner = memory_planner
        self.enable_pypto_l0c_double_buffer = enable_pypto_l0c_double_buffer
        self.runtime = runtime
        self.backend_name = _backend_name(backend)
        self.last_run_seconds = 0.0  # duration of the latest transform, for the timing instrument
        # Seconds spent in instruments' and pipeline checks' hooks, by their `timing_label` (`--timing`).
        self.instrument_seconds: dict[str, float] = {}

    def extended(self, instruments: Sequence[Any], verification_level: VerificationLevel | None = None,
                 backend: Any = None) -> PassContext:
        """A context with this one's options and instruments plus `instruments` (appended), at another level
        or backend when given: what a pipeline run pushes for its own instruments."""
        return PassContext(self.instruments + list(instruments),
                           verification_level if verification_level is not None else self._verification_level,
                           self.diagnostic_phase, self.disabled_diagnostics, self.memory_planner,
                           self.enable_pypto_l0c_double_buffer, self.runtime,
                           backend if backend is not None else self.backend_name)

    def account(self, label: str | None, seconds: float) -> None:
        """Add `seconds` to the `--timing` row `label` (None: not shown)."""
        if label is not None:
            self.instrument_seconds[label] = self.instrument_seconds.get(label, 0.0) + seconds

    def report(self, message: str) -> None:
        """Tell the instruments what long work is under way (a check-run execution): the progress display
        shows it."""
        for inst in self.instruments:
            hook = getattr(inst, "on_progress", None)
            if hook is not None:
                hook(message)

    def get_memory_planner(self) -> Any:
        return self.memory_planner

    def get_enable_pypto_l0c_double_buffer(self) -> bool:
        return self.enable_pypto_l0c_double_buffer

    def get_diagnostic_phase(self) -> Any:
        return self.diagnostic_phase

    def get_disabled_diagnostics(self) -> Any:
        return self.disabled_diagnostics

    def __enter__(self) -> PassContext:
        _stack().append(self)
        return self

    def __exit__(self, *exc: Any) -> None:
        stack = _stack()
        if stack and stack[-1] is self:
            stack.pop()

    @staticmethod
    def current() -> PassContext | None:
        stack = _stack()
        return stack[-1] if stack else None

    def get_instruments(self) -> list[Any]:
        return list(self.instruments)

    def get_verification_level(self) -> VerificationLevel:
        """The level given to this context, else PYPTO_VERIFY_LEVEL, else BASIC."""
        return self._verification_level if self._verification_level is not None else level_from_env()

    @property
    def verification_level(self) -> VerificationLevel:
        return self.get_verification_level()

    @property
    def backend(self) -> Backend:
        """The active backend: this context's, else `pypto.backend`'s choice, else Ascend910B."""
        from pypto_core.backend.selection import active_backend

        return active_backend(self.backend_name)

    def get_backend(self) -> Backend:
        return self.backend


@pauses_collector
def run_pass(p: Pass, program: Program) -> Program:
    """Instruments' before_pass, the transform, instruments' after_pass (all in list order)."""
    program = as_program(program)
    ctx = PassContext.current()
    run_ctx = ctx if ctx is not None else PassContext()
    for inst in run_ctx.instruments:
        _timed(run_ctx, inst, inst.before_pass, p, program)
    start = time.perf_counter()
    result = p.run(program, run_ctx)
    run_ctx.last_run_seconds = time.perf_counter() - start
    for inst in run_ctx.instruments:
        _timed(run_ctx, inst, inst.after_pass, p, result)
    return result


def _timed(ctx: PassContext, inst: Any, hook: Any, *args: Any) -> None:
    """Run an instrument hook, adding its time to the instrument's `--timing` row."""
    start = time.perf_counter()
    try:
        hook(*args)
    finally:
        ctx.account(getattr(inst, "timing_label", "other instruments"), time.perf_counter() - start)

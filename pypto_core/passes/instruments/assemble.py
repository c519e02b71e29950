"""The one place a pipeline run's instruments are chosen (docs/architecture.md, the pass manager).

From the verification level and the output options of a run:

* context instruments, which fire around every pass (`PassInstrument`: dumps, prints, the caller's
  own, check-run, timing), in that order after the enclosing context's;
* pipeline checks, which run between the steps (`PipelineInstrument`): the PassManager's property
  verification (with the static check, which runs at every level) or PyPTO's PassPipeline checks, and
  the round trip at level `roundtrip`;
* the context of a unit test of a pass, as PyPTO's test conftest sets it (`pass_test_instruments`):
  verification of required / produced properties around every pass plus the round trip.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

from pypto_core.passes.instruments.base import PassInstrument
from pypto_core.passes.instruments.pipeline_checks import (
    PipelineInstrument,
    PipelineVerification,
    RoundtripCheck,
    VerifiedSetVerification,
)
from pypto_core.passes.verification_level import VerificationLevel


@dataclass(frozen=True)
class OutputOptions:
    """What a run writes besides its result: dumps, prints around passes, a timing table."""

    dump_dir: str | None = None
    print_after_all: bool = False
    print_after: Sequence[str] = ()
    print_before_all: bool = False
    print_before: Sequence[str] = ()
    print_changed: str | None = None  # None, "full" or "diff"
    filter_func: Sequence[str] = ()
    timing: bool = False
    stream: TextIO | None = None  # prints and the timing table (default: stderr)
    # Show each pass and each check-run execution on stderr (None: only when stderr is a terminal).
    progress: bool | None = False

    @property
    def prints(self) -> bool:
        return bool(self.print_after_all or self.print_after or self.print_before_all or self.print_before
                    or self.print_changed)


@dataclass
class Assembly:
    """The instruments of one run."""

    context: list[PassInstrument] = field(default_factory=list)
    checks: list[PipelineInstrument] = field(default_factory=list)
    timing: Any = None  # the TimingInstrument, when asked for


def assemble(level: VerificationLevel, *, outputs: OutputOptions | None = None,
             extra: Iterable[PassInstrument] = (), pypto_pipeline: bool = False) -> Assembly:
    """The instruments of a run at `level`; `pypto_pipeline` selects PyPTO's PassPipeline checks."""
    from pypto_core.passes.instruments.dump import IRDumpInstrument
    from pypto_core.passes.instruments.print_ir import PrintAfterInstrument
    from pypto_core.passes.instruments.timing import TimingInstrument

    out = outputs or OutputOptions()
    assembly = Assembly()
    if out.dump_dir:
        assembly.context.append(IRDumpInstrument(out.dump_dir))
    if out.prints:
        assembly.context.append(PrintAfterInstrument(
            out.print_after_all, out.print_after, False, out.stream, changed=out.print_changed,  # type: ignore[arg-type]
            before_all=out.print_before_all, before_names=out.print_before, filter_funcs=out.filter_func))
    assembly.context.extend(extra)
    if level is VerificationLevel.CHECK_RUN:
        from pypto_core.passes.instruments.check_run import load_check_run_instrument

        assembly.context.append(load_check_run_instrument())
    if out.timing:
        assembly.timing = TimingInstrument()
        assembly.context.append(assembly.timing)
    if pypto_pipeline:
        if level.verifies_properties:
            assembly.checks.append(VerifiedSetVerification())
        if level is VerificationLevel.ROUNDTRIP:
            assembly.checks.append(RoundtripCheck())
    else:
        if level is VerificationLevel.ROUNDTRIP:
            assembly.checks.append(RoundtripCheck())
        assembly.checks.append(PipelineVerification(verify_properties=level.verifies_properties))
    return assembly


def pass_test_instruments(level: VerificationLevel | None = None) -> list[PassInstrument]:
    """The instruments pass tests run under (PyPTO's conftest): VerificationInstrument(BEFORE_AND_AFTER) and,
    at `roundtrip` (the default here, else PYPTO_VERIFY_LEVEL), the round-trip instrument; none at `none`."""
    from pypto_core.passes.instruments.roundtrip import make_roundtrip_instrument
    from pypto_core.passes.instruments.verification import VerificationInstrument, VerificationMode
    from pypto_core.passes.verification_level import level_from_env

    level = level if level is not None else level_from_env(VerificationLevel.ROUNDTRIP)
    if not level.verifies_properties:
        return []
    instruments: list[PassInstrument] = [VerificationInstrument(VerificationMode.BEFORE_AND_AFTER)]
    if level is not VerificationLevel.BASIC:
        instruments.append(make_roundtrip_instrument())
    return instruments

"""Pass instruments: hooks run around every pass of the active PassContext (`PassInstrument`), and checks
a pipeline run makes between its steps (`PipelineInstrument`); `assemble` chooses a run's instruments."""

from pypto_core.passes.instruments.base import PassInstrument
from pypto_core.passes.instruments.callback import CallbackInstrument
from pypto_core.passes.instruments.dump import IRDumpInstrument
from pypto_core.passes.instruments.pipeline_checks import PipelineInstrument
from pypto_core.passes.instruments.print_ir import PrintAfterInstrument
from pypto_core.passes.instruments.report import ReportInstrument
from pypto_core.passes.instruments.roundtrip import check_roundtrip, make_roundtrip_instrument
from pypto_core.passes.instruments.timing import TimingInstrument
from pypto_core.passes.instruments.verification import VerificationInstrument, VerificationMode

__all__ = ["CallbackInstrument", "IRDumpInstrument", "PassInstrument", "PipelineInstrument", "PrintAfterInstrument",
           "ReportInstrument", "TimingInstrument", "VerificationInstrument", "VerificationMode", "check_roundtrip",
           "make_roundtrip_instrument"]

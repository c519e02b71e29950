"""VerificationInstrument: verify a pass's required (before) / produced (after) properties plus the
structural ones, with PyPTO's messages (docs/architecture.md, the pass manager)."""

from __future__ import annotations

import enum
from typing import Any

from pypto_core.passes.instruments.base import PassInstrument
from pypto_core.passes.property_sets import get_structural_properties
from pypto_core.passes.verifier_registry import verify_or_raise


class VerificationMode(enum.Enum):
    NONE = 0
    BEFORE = 1
    AFTER = 2
    BEFORE_AND_AFTER = 3


class VerificationInstrument(PassInstrument):
    name = "VerificationInstrument"
    timing_label = "verification"

    def __init__(self, mode: VerificationMode = VerificationMode.BEFORE_AND_AFTER) -> None:
        self.mode = mode

    def before_pass(self, p: Any, program: Any) -> None:
        if self.mode in (VerificationMode.BEFORE, VerificationMode.BEFORE_AND_AFTER):
            props = p.get_required_properties().union_with(get_structural_properties())
            verify_or_raise(props, program, f"Pre-verification failed before pass '{p.get_name()}'")

    def after_pass(self, p: Any, program: Any) -> None:
        if self.mode in (VerificationMode.AFTER, VerificationMode.BEFORE_AND_AFTER):
            props = p.get_produced_properties().union_with(get_structural_properties())
            verify_or_raise(props, program, f"Post-verification failed after pass '{p.get_name()}'")


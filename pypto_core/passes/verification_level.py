"""How much checking `PassPipeline.run` and the PassManager do (docs/architecture.md, the pass manager)."""

from __future__ import annotations

import enum
import os

VERIFY_LEVEL_ENV = "PYPTO_VERIFY_LEVEL"


class VerificationLevel(enum.Enum):
    NONE = 0
    BASIC = 1  # verify properties on the input and after each pass
    ROUNDTRIP = 2  # BASIC, plus print -> parse -> structural equality after each pass

    @classmethod
    def parse(cls, text: str) -> VerificationLevel:
        try:
            return cls[text.strip().upper()]
        except KeyError:
            raise ValueError(f"unknown verification level '{text}' (none, basic or roundtrip)") from None


def level_from_env(default: VerificationLevel = VerificationLevel.BASIC) -> VerificationLevel:
    text = os.environ.get(VERIFY_LEVEL_ENV, "").strip()
    return VerificationLevel.parse(text) if text else default

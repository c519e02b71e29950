"""How much checking a pipeline run does: the one vocabulary of verification levels (docs/architecture.md,
the pass manager).

`none` runs the passes only; `basic` verifies properties on the input and after each pass; `roundtrip`
adds print -> parse -> structural equality after each pass; `check-run` adds running the program on the
reference machine before and after each pass and comparing the outputs. `pypto.toml`'s `verify`, the
`--verify` flag, `PassManager(verify=...)` and `PassContext(instruments, verification_level)` all name
these levels; PyPTO's `VerificationLevel.{NONE, BASIC, ROUNDTRIP}` are three of them.
"""

from __future__ import annotations

import enum
import os

VERIFY_LEVEL_ENV = "PYPTO_VERIFY_LEVEL"


class VerificationLevel(enum.Enum):
    NONE = 0
    BASIC = 1  # verify properties on the input and after each pass
    ROUNDTRIP = 2  # BASIC, plus print -> parse -> structural equality after each pass
    CHECK_RUN = 3  # ROUNDTRIP's property checks, plus the reference machine before and after each pass

    @property
    def text(self) -> str:
        """The spelling in pypto.toml and on the command line: `none`, `basic`, `roundtrip`, `check-run`."""
        return self.name.lower().replace("_", "-")

    @property
    def verifies_properties(self) -> bool:
        return self is not VerificationLevel.NONE

    @classmethod
    def parse(cls, text: str) -> VerificationLevel:
        key = text.strip().upper().replace("-", "_")
        try:
            return cls[key]
        except KeyError:
            raise ValueError(f"unknown verification level '{text}' (one of {', '.join(VERIFY_LEVELS)})") from None

    @classmethod
    def of(cls, value: str | VerificationLevel) -> VerificationLevel:
        return value if isinstance(value, VerificationLevel) else cls.parse(value)


VERIFY_LEVELS: tuple[str, ...] = tuple(level.text for level in VerificationLevel)


def level_from_env(default: VerificationLevel = VerificationLevel.BASIC) -> VerificationLevel:
    text = os.environ.get(VERIFY_LEVEL_ENV, "").strip()
    return VerificationLevel.parse(text) if text else default

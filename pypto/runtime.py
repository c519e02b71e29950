"""`pypto.runtime`: only `RunConfig`, so that test modules importing it load (running on devices is out of scope)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass
class RunConfig:
    platform: str = "a2a3"
    options: dict[str, Any] | None = None

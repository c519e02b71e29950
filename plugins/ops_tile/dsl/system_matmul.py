"""DSL spellings (OPS.md `py:` lines) of the system_matmul ops (issue 14)."""

from __future__ import annotations

from typing import Any

TILE: dict[str, Any] = {}
TENSOR: dict[str, Any] = {}
SYSTEM: dict[str, Any] = {}
UNIFIED: dict[str, Any] = {}  # top-level pl.X spellings; they override the base dispatchers of the same name

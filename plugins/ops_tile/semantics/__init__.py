"""numpy semantics of the ops_tile ops for the reference machine: EVALUATORS maps op name -> evaluate."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

EVALUATORS: dict[str, Callable[..., Any]] = {}

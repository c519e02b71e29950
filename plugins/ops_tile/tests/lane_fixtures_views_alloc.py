"""Lane-invariant coverage fixtures of the views_alloc ops (merged by test_lane_invariant_arg_coverage.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .helpers import Blind

FIXTURES: dict[str, Callable[[], Any]] = {}
EXPECTED_BLIND: dict[tuple[str, int], Blind] = {}

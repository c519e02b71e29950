"""AutoTileMatmulL0's performance hints: a matmul it leaves as written, and why, one line each in PyPTO's
format (docs/passes/auto_tile_matmul_l0.md, hints), through the core's perf-hint channel (stderr, or
`perf_hints.log` of a `passes.ReportInstrument`). Never errors."""

from __future__ import annotations

from typing import Any

from pypto_core.passes.perf_hints import perf_hint as emit


def perf_hint(code: str, message: str, span: Any) -> None:
    emit(code, "AutoTileMatmulL0", message, span)

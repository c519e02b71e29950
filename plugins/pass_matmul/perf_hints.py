"""AutoTileMatmulL0's performance hints: a matmul it leaves as written, and why, one stderr line each in PyPTO's
format (docs/passes/auto_tile_matmul_l0.md, hints). Never errors."""

from __future__ import annotations

import datetime
import sys
from typing import Any


def perf_hint(code: str, message: str, span: Any) -> None:
    now = datetime.datetime.now().strftime("%Y-%m-%d %H:%M:%S")
    where = ""
    if span is not None and getattr(span, "begin_line", -1) >= 0:
        where = f" at {span.filename}:{span.begin_line}:{span.begin_column}"
    sys.stderr.write(f"{now} I | [perf_hint {code}] AutoTileMatmulL0: {message}{where}\n")

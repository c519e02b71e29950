"""How much the reference machine does for one program: user errors, never a hang or an exhausted host
(docs/limits.md, the reference machine).

MAX_ARRAY_BYTES defaults to 2 GiB and can be changed with the environment variable PYPTO_MACHINE_MAX_BYTES
(bytes); an input, an Out buffer or an allocation that needs more is a MachineError naming what and how much,
before anything is allocated. MAX_ITERATIONS bounds the loop iterations of one run (every `for` / `while`
iteration, nested ones included; default 1,000,000, PYPTO_MACHINE_MAX_ITERATIONS): a loop that would pass it is
a MachineError at the loop before it starts (a `for`) or when it gets there (a `while`).
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence

import numpy as np

from pypto_core.interp.errors import MachineError
from pypto_core.ir.span import Span

DEFAULT_MAX_ARRAY_BYTES = 2 * 1024**3
DEFAULT_MAX_ITERATIONS = 1_000_000


def max_iterations() -> int:
    raw = os.environ.get("PYPTO_MACHINE_MAX_ITERATIONS", "")
    return int(raw) if raw.isdigit() else DEFAULT_MAX_ITERATIONS


class IterationBudget:
    """The loop iterations one run may still make."""

    def __init__(self) -> None:
        self.limit = max_iterations()
        self.left = self.limit

    def spend(self, n: int, span: Span | None) -> None:
        self.left -= n
        if self.left < 0:
            raise MachineError(f"this loop takes the program past {self.limit:,} loop iterations on the reference "
                               f"machine (every for / while iteration of one run counts, nested ones included): "
                               f"run it with smaller sizes or trip counts, or set PYPTO_MACHINE_MAX_ITERATIONS to "
                               f"raise the bound", span)


def max_array_bytes() -> int:
    raw = os.environ.get("PYPTO_MACHINE_MAX_BYTES", "")
    return int(raw) if raw.isdigit() else DEFAULT_MAX_ARRAY_BYTES


def check_allocation(shape: Sequence[int], dtype: np.dtype, what: str, span: Span | None = None) -> None:
    """Raise before allocating an array the machine will not hold (or a negative extent)."""
    if any(d < 0 for d in shape):
        raise MachineError(f"{what}: the shape {list(shape)} has a negative extent", span)
    need = math.prod(shape) * np.dtype(dtype).itemsize
    limit = max_array_bytes()
    if need > limit:
        raise MachineError(f"{what}: a {list(shape)} array of {np.dtype(dtype).name} needs {need:,} bytes, more than "
                           f"the reference machine's limit of {limit:,} bytes per array (set PYPTO_MACHINE_MAX_BYTES "
                           f"to raise it, or run with smaller shapes)", span)

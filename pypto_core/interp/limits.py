"""How much memory the reference machine gives one array (issue 15: a user error before anything is allocated).

MAX_ARRAY_BYTES defaults to 2 GiB and can be changed with the environment variable PYPTO_MACHINE_MAX_BYTES
(bytes); an input, an Out buffer or an allocation that needs more is a MachineError naming what and how much.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence

import numpy as np

from pypto_core.interp.errors import MachineError
from pypto_core.ir.span import Span

DEFAULT_MAX_ARRAY_BYTES = 2 * 1024**3


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

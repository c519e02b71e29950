"""The numpy semantics of the transpose family's ops (../families/transpose.py), imported when the reference
machine first runs an op, never by a process that only compiles (pypto_core/ops/semantics_module.py)."""

from __future__ import annotations

from typing import Any

import numpy as np

from pypto_core.interp.gm_race import notes_own_gm_accesses
from pypto_core.ops.semantics_module import Semantics

semantics = Semantics()


@semantics("tile.transpose", "tensor.transpose")
@notes_own_gm_accesses
def transpose(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    """tile.transpose copies; tensor.transpose is a view."""
    out = np.swapaxes(args[0], int(args[1]), int(args[2]))
    return out if call.op.name.startswith("tensor.") else out.copy()


@semantics("tile.transpose_view")
def transpose_view(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    return np.swapaxes(args[0], -1, -2).copy()

"""A kernel's results are its own tensors: a view it returns is copied as it leaves.

ConvertTensorToTileOps lowers a tensor view an InCore function returns (`y = pl.slice(x, ...)`, `return y`)
to a tile stored into a new Out parameter (docs/passes/convert_tensor_to_tile_ops.md): the caller receives a
tensor of its own, not a window of the kernel's argument. The machine gives the program as written the same
meaning, so a caller's later write into the result does not change `x` before the pass and leave it alone
after. Values leaving a CORE_GROUP scope of an orchestration are the outlined kernel's results
(OutlineIncoreScopes), so they are treated alike. A parameter returned as it is (an Out / InOut tensor the
kernel wrote) stays the caller's tensor.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np


def owned(value: Any, kept: Sequence[Any]) -> Any:
    """`value`, or a copy of it if it is a numpy view other than one of the arrays in `kept`."""
    if value.__class__ is np.ndarray and value.base is not None and not any(value is k for k in kept):
        return value.copy()
    return value


def owned_results(values: tuple[Any, ...], args: Sequence[Any]) -> tuple[Any, ...]:
    return tuple(owned(v, args) for v in values)

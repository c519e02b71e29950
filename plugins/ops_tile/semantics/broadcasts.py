"""The numpy semantics of the broadcasts family's ops (../families/broadcasts.py), imported when the reference
machine first runs an op, never by a process that only compiles (pypto_core/ops/semantics_module.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from pypto_core.ir.enums import TileLayout
from pypto_core.ir.types import TileType
from pypto_core.ops.build import static_int
from pypto_core.ops.semantics_module import Semantics
from pypto_plugins.ops_tile.common import names
from pypto_plugins.ops_tile.common.semantics import Evaluate, result_np_dtype, wide
from pypto_plugins.ops_tile.families.broadcasts import (
    EXPAND_NEW,
    expand_name,
)

semantics = Semantics()


FUNCTIONS: dict[str, Callable[[Any, Any], Any]] = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.true_divide,
    "max": np.maximum, "min": np.minimum, "expdif": lambda x, v: np.exp(np.subtract(x, v)),
    "": lambda x, v: np.broadcast_to(v, np.shape(x)),
}


def packed_carrier(vec_type: Any) -> bool:
    """A tile.row_expand_add row_vec that is a packed 32-byte block per row: row-major with more than one
    column (a [M, 1] column, col_major when M > 1, is the one-value-per-row form)."""
    if not isinstance(vec_type, TileType) or static_int(vec_type.shape[-1]) == 1:
        return False
    return vec_type.effective_view().blayout is TileLayout.row_major


def expand(kind: str, row: bool) -> Evaluate:
    """row_expand_*(x, v [..., M, 1]) / col_expand_*(x, v [..., 1, N]): v broadcast over x's shape. A packed
    row-major 32-byte carrier row_vec of tile.row_expand_add ([M, K], K = 32 / element bytes) repeats from
    column 0: x[i, j] + v[i, j mod K]."""
    fn = FUNCTIONS[kind]

    def evaluate(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
        x, v = np.asarray(args[0]), np.asarray(args[1])
        if row and call.op.name == "tile.row_expand_add" and packed_carrier(call.args[1].type):
            n, k = x.shape[-1], v.shape[-1]
            v = np.take(v, np.arange(n) % k, axis=-1)
        else:
            v = v[..., :1] if row else v[..., :1, :]
        return np.array(fn(wide(x), wide(v)), copy=True).astype(result_np_dtype(call))

    return evaluate


for _d in ("row", "col"):
    for _n in (*names.EXPAND, *EXPAND_NEW):
        semantics.of(f"tile.{expand_name(_d, _n)}", expand(_n, _d == "row"))
        semantics.of(f"tensor.{expand_name(_d, _n)}", expand(_n, _d == "row"))

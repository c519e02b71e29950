"""Pass rewrite rules of the system_matmul ops (issue 14): tile forms, 2-D flattening, split forms.

ConvertTensorToTileOps: the tensor launch queries become their tile forms in InCore code
(tensor.get_block_idx -> tile.get_block_idx, ...), so no tensor op is left there. The system ops and the
MX matmuls are already what a kernel holds. No flatten or split rule: the queries take no tile, the
ordering ops no operand, and the MX matmuls are 2-D cube ops the split passes never halve.
"""

from __future__ import annotations

from typing import Any

from pypto_core.ops.tile_form import TileForm

_QUERIES = ("get_block_idx", "get_block_num", "get_subblock_idx")


def tile_forms() -> dict[str, Any]:
    return {f"tensor.{n}": TileForm(op=f"tile.{n}") for n in _QUERIES}


def flatten_rules() -> dict[str, Any]:
    return {}

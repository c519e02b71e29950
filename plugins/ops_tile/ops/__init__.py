"""OpDefs of the ops_tile plugin, one module per family."""

from __future__ import annotations

from pypto_core.ops.opdef import OpDef


def ALL_OPDEFS() -> list[OpDef]:  # noqa: N802 - a constant-like accessor
    from pypto_plugins.ops_tile.ops import (
        tensor_elementwise,
        tile_elementwise,
        tile_memory,
    )

    modules = (tile_memory, tile_elementwise, tensor_elementwise)
    return [opdef for m in modules for opdef in m.OPDEFS]

"""The op interfaces the tile passes ask (docs/plugins.md, op interfaces): declared here, implemented by
the op plugins, keyed by op name."""

from __future__ import annotations

from pypto_core.ops.interfaces import OpInterface

TILE_FORM = OpInterface(
    "tile_form",
    doc="how ConvertTensorToTileOps lowers a tensor op: a TileForm naming a tile op, or a `lower(ctx, call)` "
        "function; `gm_access=True` for ops that address GM themselves and may stay in tile code",
    missing="compute it outside the pl.at scope, or implement 'tile_form' for the op in its plugin")

FLATTEN_2D = OpInterface(
    "flatten_2d",
    doc="how FlattenTileNdTo2D rewrites a call on N-D tiles: (call, flattened operands) -> the 2-D call, "
        "ValueError when the access has no 2-D form",
    missing="the same call on the flattened operands, accepted when its result is the flattened result")

EXPAND = OpInterface(
    "expand",
    doc="makes an op composite: (call, operands) -> an expression of other ops computing the same value with "
        "the same type, which LowerCompositeOps substitutes",
    missing="the op is not composite; LowerCompositeOps leaves it")

INTERFACES = (TILE_FORM, FLATTEN_2D, EXPAND)

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
    doc="how FlattenTileNdTo2D rewrites a call on N-D tiles: (call, flattened operands, context) -> the 2-D "
        "call, or a variable the context bound helper statements to; ValueError when the access has no 2-D form",
    missing="the same call on the flattened operands, accepted when its result is the flattened result")

EXPAND = OpInterface(
    "expand",
    doc="makes an op composite: (call, operands) -> an expression of other ops computing the same value with "
        "the same type, which LowerCompositeOps substitutes",
    missing="the op is not composite; LowerCompositeOps leaves it")

CAST_HOP = OpInterface(
    "cast_hop",
    doc="marks a dtype conversion LegalizeTileCast chains when the backend has no native one: (call, operand, "
        "dtype) -> the same conversion (rounding mode and all) of operand to dtype",
    missing="the op is not a dtype conversion; LegalizeTileCast leaves it")

ROW_MAJOR_LAYOUT = OpInterface(
    "row_major_layout",
    doc="the layout the backend's instruction needs: {'operands': a tuple of operand indices or 'all' (every "
        "tile operand), 'result': bool}, the operands and the result that must be row-major; "
        "ResolveBackendOpLayouts repairs the others",
    missing="the op takes its tiles in any layout; ResolveBackendOpLayouts leaves it")

MX_SCALE_PAIRS = OpInterface(
    "mx_scale_pairs",
    doc="an MX matmul: its ((data operand, scale operand), ...) index pairs, lhs first; InsertMxScaleAddr binds "
        "each scale to its data with tile.tget_scale_addr before the call",
    missing="the op is not an MX matmul; InsertMxScaleAddr leaves it")

TILE_WINDOW = OpInterface(
    "tile_window",
    doc="a window of a tile read in place (tile.slice): {'window': (call) -> (source, shape, [row, col]) for "
        "a plain 2-D window, else None; 'copy': (source, row, col, shape, target_memory, span) -> a call "
        "copying that window into a tile of its own}; CanonicalizeTileSlice folds and materializes them",
    missing="the op is not an in-place window; CanonicalizeTileSlice leaves it")

WINDOW_COPY = OpInterface(
    "window_copy",
    doc="a copy of a window of a tile (tile.extract): {'window': (call) -> (source, row, col), 'rebase': (call, "
        "source, row, col) -> the same copy from another source and origin}; CanonicalizeTileSlice reads "
        "through a window operand into its base",
    missing="the op is not a window copy")

CONTIGUOUS_WINDOW_OPERANDS = OpInterface(
    "contiguous_window_operands",
    doc="True: the backend instruction reads its tile operands in place, so a window operand must be "
        "contiguous with a constant origin (tile.col_expand_*); CanonicalizeTileSlice copies the others",
    missing="a window operand only needs an aligned start")

INTERFACES = (TILE_FORM, FLATTEN_2D, EXPAND, CAST_HOP, ROW_MAJOR_LAYOUT, MX_SCALE_PAIRS, TILE_WINDOW, WINDOW_COPY,
              CONTIGUOUS_WINDOW_OPERANDS)

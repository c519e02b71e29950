"""Tile forms of the tensor ops (pypto_core.ops.tile_form): what ConvertTensorToTileOps lowers them to."""

from __future__ import annotations

from pypto_core.ops.tile_form import TileForm


def TILE_FORMS() -> dict[str, TileForm]:  # noqa: N802 - a constant-like accessor
    from pypto_plugins.ops_tile.lowering import compute, memory

    return {**compute.tile_forms(), **memory.tile_forms()}


def FLATTEN_RULES() -> dict:  # noqa: N802 - a constant-like accessor
    from pypto_plugins.ops_tile.lowering.flatten import flatten_rules

    return flatten_rules()


def SPLIT_FORMS() -> dict:  # noqa: N802 - a constant-like accessor
    from pypto_plugins.ops_tile.lowering.split_forms import split_forms

    return split_forms()

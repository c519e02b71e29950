"""The verifiers of the properties the tile passes establish (registered by the pass_tile plugin)."""

from __future__ import annotations

from pypto_plugins.pass_tile.verifiers.acc_to_gm_store import verify_acc_to_gm_store
from pypto_plugins.pass_tile.verifiers.incore_tile_ops import verify_incore_tile_ops
from pypto_plugins.pass_tile.verifiers.tile_memory_inferred import verify_tile_memory_inferred
from pypto_plugins.pass_tile.verifiers.tile_ops_2d import verify_tile_ops_2d

VERIFIERS = {
    "IncoreTileOps": (verify_incore_tile_ops, "InCore functions hold no tensor op that has a tile form (GM accesses "
                                              "and ops with no tile form may stay)"),
    "TileOps2D": (verify_tile_ops_2d, "tiles in InCore functions are at most 2-D"),
    "TileMemoryInferred": (verify_tile_memory_inferred,
                           "every tile has a memory space and every constrained operand is in an accepted one"),
    "AccToGmStoreValid": (verify_acc_to_gm_store, "no cube accumulator is stored straight into an 8-bit tensor"),
}

"""The pass_matmul plugin: the L0 tile chooser (`passes.l0_tile_chooser`) and AutoTileMatmulL0, which rewrites
matmuls into L0-sized work (docs/passes/auto_tile_matmul_l0.md)."""

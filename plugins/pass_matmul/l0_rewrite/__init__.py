"""The steps of AutoTileMatmulL0 (docs/passes/auto_tile_matmul_l0.md): which matmuls it acts on and the tile the
chooser gives (candidate.py), the K-loop rewrite (k_loop.py) and the M/N grids (grid.py)."""

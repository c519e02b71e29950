"""The steps of the tile-preparation passes: cast paths (LegalizeTileCast), slice windows (CanonicalizeTileSlice)."""

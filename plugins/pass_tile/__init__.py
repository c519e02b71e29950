"""The tile-lowering passes (issue 8): ConvertTensorToTileOps, FlattenTileNdTo2D, InferTileMemorySpace."""

"""The tile-lowering passes (docs/passes/convert_tensor_to_tile_ops.md, flatten_tile_nd_to_2d.md,
infer_tile_memory_space.md): ConvertTensorToTileOps, FlattenTileNdTo2D, InferTileMemorySpace."""

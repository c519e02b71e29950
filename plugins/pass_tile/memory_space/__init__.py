"""InferTileMemorySpace's steps: demands (a reverse sweep), then placement (a forward walk)."""

"""ConvertTensorToTileOps' parts: lowering one function, and the outputs it adds for returned tiles."""

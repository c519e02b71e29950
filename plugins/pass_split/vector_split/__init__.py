"""LowerAutoVectorSplit's two paths: the AUTO path (a function-level split) and the region path."""

"""The vector-split passes (seeds 002, 003): LowerAutoVectorSplit, ExpandMixedKernel, SplitVectorKernel,
the split-axis utilities they share, and the AivSplitValid verifier."""

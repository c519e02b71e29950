"""The vector-split passes (docs/passes/lower_auto_vector_split.md, expand_mixed_kernel.md, split_vector_kernel.md): LowerAutoVectorSplit, ExpandMixedKernel, SplitVectorKernel,
the split-axis utilities they share, and the AivSplitValid verifier."""

"""The split-axis machinery of docs/passes/lower_auto_vector_split.md, shared by LowerAutoVectorSplit's two paths, ExpandMixedKernel,
SplitVectorKernel and the AivSplitValid verifier. One module per job."""

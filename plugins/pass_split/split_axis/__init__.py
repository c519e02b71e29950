"""The split-axis machinery of seed 003, shared by LowerAutoVectorSplit's two paths, ExpandMixedKernel,
SplitVectorKernel and the AivSplitValid verifier. One module per job."""

"""SplitVectorKernel's two jobs (docs/passes/split_vector_kernel.md): stamping split_aiv kernels, and the no-split dual-AIV replay."""

"""SplitVectorKernel's two jobs (seed 002): stamping split_aiv kernels, and the no-split dual-AIV replay."""

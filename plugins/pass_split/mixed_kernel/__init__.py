"""ExpandMixedKernel's machinery (docs/passes/expand_mixed_kernel.md): one module per job -- where each statement runs (placement),
the split codes of a transfer, one core's body (core_body), dead code and loop repair (cleanup), the tfree
of each pop, the pipe setup, the GM fences, and the Group function."""

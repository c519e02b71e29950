"""The patterns of OptimizeOrchTensors (docs/passes/optimize_orch_tensors.md), one module each."""

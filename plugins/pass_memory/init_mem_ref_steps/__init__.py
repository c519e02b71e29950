"""The steps of InitMemRef (docs/passes/init_mem_ref.md), one module each."""

"""MemoryReuse's steps (docs/passes/memory_reuse.md): lifetimes, intervals, sharing rules, packing, commit, fix-ups."""

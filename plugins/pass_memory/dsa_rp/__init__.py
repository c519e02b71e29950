"""The DSA_RP planner's placement for AllocateMemoryAddr (docs/passes/allocate_memory_addr.md, DSA_RP): one buffer
per allocation, hard separations, reuse penalties, a capacity-bounded greedy solver."""

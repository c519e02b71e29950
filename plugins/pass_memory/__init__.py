"""The pass_memory plugin: PyPTO's memory planning passes, from MaterializeTensorStrides to AllocateMemoryAddr
(docs/memory_planning.md, docs/passes/)."""

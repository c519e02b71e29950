"""The verifiers of the properties the memory passes establish (registered by the pass_memory plugin)."""

from __future__ import annotations

from pypto_plugins.pass_memory.verifiers.allocated_memory_addr import verify_allocated_memory_addr

VERIFIERS = {
    "AllocatedMemoryAddr": (verify_allocated_memory_addr,
                            "every on-chip tile MemRef has a non-negative address and each memory space's bytes "
                            "fit the backend's capacity"),
}

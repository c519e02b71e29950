"""The properties pass_memory's passes establish, with their verifiers (docs/reference/properties.md)."""

from __future__ import annotations

from pypto_plugins.pass_memory.verifiers.allocated_memory_addr import verify_allocated_memory_addr
from pypto_plugins.pass_memory.verifiers.has_memrefs import verify_has_memrefs
from pypto_plugins.pass_memory.verifiers.tensor_view_canonical import verify_tensor_view_canonical

VERIFIERS = {
    "HasMemRefs": (verify_has_memrefs, "every tile variable has a MemRef (InitMemRef), except the buffer-less "
                                       "tiles of a pipe ring (a cross-core pop and its views)"),
    "TensorViewCanonical": (verify_tensor_view_canonical, "every tensor view states its strides "
                                                          "(MaterializeTensorStrides) and none is NZ"),
    "AllocatedMemoryAddr": (verify_allocated_memory_addr,
                            "every on-chip tile MemRef has a non-negative address and each memory space's bytes "
                            "fit the backend's capacity"),
}

"""The properties pass_memory's passes establish, with their verifiers (docs/reference/properties.md)."""

from __future__ import annotations

from pypto_plugins.pass_memory.verifiers.has_memrefs import verify_has_memrefs
from pypto_plugins.pass_memory.verifiers.tensor_view_canonical import verify_tensor_view_canonical

VERIFIERS = {
    "HasMemRefs": (verify_has_memrefs, "every tile variable has a MemRef (InitMemRef), except the buffer-less "
                                       "tiles of a pipe ring (a cross-core pop and its views)"),
    "TensorViewCanonical": (verify_tensor_view_canonical, "every tensor view states its strides "
                                                          "(MaterializeTensorStrides) and none is NZ"),
}

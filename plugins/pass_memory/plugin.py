"""Entry point of the pass_memory plugin: the memory planning passes and their property verifiers."""

from __future__ import annotations

from typing import Any

from pypto_core.plugins import hookimpl
from pypto_plugins.pass_memory.allocate_memory_addr import AllocateMemoryAddr
from pypto_plugins.pass_memory.canonicalize_io_order import CanonicalizeIOOrder
from pypto_plugins.pass_memory.dsa_rp.recognizer import recognize_dsa_reuse_penalties
from pypto_plugins.pass_memory.init_mem_ref import InitMemRef
from pypto_plugins.pass_memory.materialize_semantic_aliases import MaterializeSemanticAliases
from pypto_plugins.pass_memory.materialize_tensor_strides import MaterializeTensorStrides
from pypto_plugins.pass_memory.memory_reuse import MemoryReuse
from pypto_plugins.pass_memory.verifiers import VERIFIERS


@hookimpl
def pypto_register_passes(registry: Any) -> None:
    registry.register_pass(InitMemRef)
    registry.register_pass(MaterializeSemanticAliases)
    registry.register_pass(MaterializeTensorStrides)
    registry.register_pass(CanonicalizeIOOrder)
    registry.register_pass(MemoryReuse)
    registry.register_pass(AllocateMemoryAddr)


    # PyPTO's pypto.testing.recognize_dsa_reuse_penalties (docs/passes/allocate_memory_addr.md, DSA_RP)
    registry.register_testing_attribute("recognize_dsa_reuse_penalties", recognize_dsa_reuse_penalties)


@hookimpl
def pypto_register_properties(registry: Any) -> None:
    for name, (verifier, doc) in VERIFIERS.items():
        registry.register_property(name, verifier, doc)

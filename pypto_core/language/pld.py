"""The `pld` namespace of the DSL: what `import pypto.language.distributed as pld` gives. Distributed
programs are out of pypto's scope; the namespace exists so that their imports succeed and the ops a
plugin registers under it (`pld.system.notify`) resolve."""

from pypto_core.language.runtime import DistributedTensor, OpNamespace

__pypto_dsl__ = "pld"

system = OpNamespace("pld.system")
tile = OpNamespace("pld.tile")

__all__ = ["DistributedTensor", "system", "tile"]

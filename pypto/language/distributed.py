"""`pypto.language.distributed` (pld) is out of scope; it exists so that imports succeed."""

from pypto_core.language.runtime import DistributedTensor, OpNamespace

system = OpNamespace("pld.system")
tile = OpNamespace("pld.tile")

__all__ = ["DistributedTensor", "system", "tile"]

"""The `pld` namespace of the DSL: what `import pypto.language.distributed as pld` gives. Distributed
programs are out of pypto's scope; the namespace exists so that their imports succeed and the ops a
plugin registers under it (`pld.system.notify`) resolve."""

from pypto_core.language.runtime import DistributedTensor, OpNamespace

__pypto_dsl__ = "pld"

system = OpNamespace("pld.system")
tile = OpNamespace("pld.tile")

__all__ = ["DistributedTensor", "system", "tile"]


def __getattr__(name: str) -> object:
    """Other `pld.<name>` values (`pld.NotifyOp`) are DSL names a plugin registers."""
    if name.startswith("__"):
        raise AttributeError(name)
    from pypto_core.ops.registry import op_registry

    entry = op_registry().dsl.get(f"pld.{name}")
    if entry is None:
        raise AttributeError(f"module 'pypto.language.distributed' has no attribute '{name}'")
    return entry.function

"""IR builders registered by op plugins: `pypto.ir.op.tile_ops` (`T.load`, ...), `tensor_ops`, `system_ops`."""

from pypto.ir.op import system_ops, tensor_ops, tile_ops

tile = tile_ops
tensor = tensor_ops
system = system_ops

__all__ = ["system", "system_ops", "tensor", "tensor_ops", "tile", "tile_ops"]

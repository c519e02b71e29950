"""Entry point of the pass_tile plugin: the tile-lowering passes (and LowerCompositeOps) and the properties they
establish."""

from __future__ import annotations

from typing import Any

from pypto_core.plugins import hookimpl
from pypto_plugins.pass_tile.canonicalize_tile_slice import CanonicalizeTileSlice
from pypto_plugins.pass_tile.convert_tensor_to_tile_ops import ConvertTensorToTileOps
from pypto_plugins.pass_tile.flatten_tile_nd_to_2d import FlattenTileNdTo2D
from pypto_plugins.pass_tile.infer_tile_memory_space import InferTileMemorySpace
from pypto_plugins.pass_tile.insert_mx_scale_addr import InsertMxScaleAddr
from pypto_plugins.pass_tile.interfaces import INTERFACES
from pypto_plugins.pass_tile.legalize_tile_cast import LegalizeTileCast
from pypto_plugins.pass_tile.lower_composite_ops import LowerCompositeOps
from pypto_plugins.pass_tile.resolve_backend_op_layouts import ResolveBackendOpLayouts
from pypto_plugins.pass_tile.verifiers import VERIFIERS


@hookimpl
def pypto_register_passes(registry: Any) -> None:
    for interface in INTERFACES:
        registry.declare_interface(interface)
    registry.register_pass(ConvertTensorToTileOps)
    registry.register_pass(FlattenTileNdTo2D)
    registry.register_pass(InferTileMemorySpace)
    registry.register_pass(LowerCompositeOps)
    registry.register_pass(LegalizeTileCast)
    registry.register_pass(InsertMxScaleAddr)
    registry.register_pass(ResolveBackendOpLayouts)
    registry.register_pass(CanonicalizeTileSlice)


@hookimpl
def pypto_register_properties(registry: Any) -> None:
    for name, (verifier, doc) in VERIFIERS.items():
        registry.register_property(name, verifier, doc)

"""Entry point of the pass_matmul plugin: AutoTileMatmulL0 and the L0 tile chooser it publishes as
`pypto.passes.l0_tile_chooser` (docs/passes/auto_tile_matmul_l0.md)."""

from __future__ import annotations

from typing import Any

from pypto_core.plugins import hookimpl
from pypto_plugins.pass_matmul import l0_tile_chooser
from pypto_plugins.pass_matmul.auto_tile_matmul_l0 import AutoTileMatmulL0
from pypto_plugins.pass_matmul.interfaces import (
    BUNDLED_ASSEMBLES,
    BUNDLED_CASTS,
    BUNDLED_LOADS,
    BUNDLED_MATMULS,
    BUNDLED_STORES,
    L0_MATMUL,
    L0_OPERAND_LOAD,
    L0_RESULT_ASSEMBLE,
    L0_RESULT_CAST,
    L0_RESULT_STORE,
)


@hookimpl
def pypto_register_ops(registry: Any) -> None:
    registry.declare_interface(L0_MATMUL)
    registry.declare_interface(L0_RESULT_STORE)
    registry.declare_interface(L0_RESULT_CAST)
    registry.declare_interface(L0_OPERAND_LOAD)
    registry.declare_interface(L0_RESULT_ASSEMBLE)
    for op, form in BUNDLED_MATMULS.items():
        registry.implement(L0_MATMUL.name, op, form)
    for op, form in BUNDLED_STORES.items():
        registry.implement(L0_RESULT_STORE.name, op, form)
    for op, form in BUNDLED_CASTS.items():
        registry.implement(L0_RESULT_CAST.name, op, form)
    for op, form in BUNDLED_LOADS.items():
        registry.implement(L0_OPERAND_LOAD.name, op, form)
    for op, form in BUNDLED_ASSEMBLES.items():
        registry.implement(L0_RESULT_ASSEMBLE.name, op, form)


@hookimpl
def pypto_register_passes(registry: Any) -> None:
    registry.register_pass(AutoTileMatmulL0)
    registry.register_passes_attribute("l0_tile_chooser", l0_tile_chooser)

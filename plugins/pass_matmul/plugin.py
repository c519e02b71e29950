"""Entry point of the pass_matmul plugin: AutoTileMatmulL0 and the L0 tile chooser it publishes as
`pypto.passes.l0_tile_chooser` (docs/passes/auto_tile_matmul_l0.md)."""

from __future__ import annotations

from typing import Any

from pypto_core.plugins import hookimpl
from pypto_plugins.pass_matmul import l0_tile_chooser


@hookimpl
def pypto_register_passes(registry: Any) -> None:
    registry.register_passes_attribute("l0_tile_chooser", l0_tile_chooser)

"""Entry point of the pipeline_presets plugin (group `pypto.plugins`).

A preset is a list of pass factory names; a name no plugin registers is reported when the pipeline
is built, so this plugin can load before (or without) the plugins that provide the passes.
"""

from __future__ import annotations

from typing import Any

from pypto_core.plugins import hookimpl

_OUTLINE = ["convert_to_ssa", "outline_incore_scopes"]
# Outlining, then the tile lowering every split pass needs (docs/architecture.md, pipeline presets).
_TILE = ["convert_to_ssa", "normalize_stmt_structure", "outline_incore_scopes", "convert_tensor_to_tile_ops",
         "flatten_tile_nd_to_2d", "infer_tile_memory_space"]

PRESETS: dict[str, list[str]] = {
    # What `pypto compile` runs with no pypto.toml (docs/architecture.md, pipeline presets): from the program as written to
    # per-lane AIC / AIV kernels.
    "default": [*_TILE, "lower_auto_vector_split", "expand_mixed_kernel", "split_vector_kernel"],
    "outline": list(_OUTLINE),
    "tile": list(_TILE),
}


@hookimpl
def pypto_register_pipelines(registry: Any) -> None:
    for name, passes in PRESETS.items():
        registry.register_pipeline(name, passes)

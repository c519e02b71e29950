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
# PyPTO's default pipeline from the source to SplitVectorKernel, in its order, with the passes pypto has
# (docs/architecture.md, pipeline presets, lists those it does not have yet).
_DEFAULT = [
    # the program as written: helpers inlined, pl.unroll loops unrolled, break / continue made structured
    "inline_functions", "unroll_loops", "ctrl_flow_transform",
    "convert_to_ssa", "simplify", "normalize_stmt_structure", "flatten_call_expr",
    # kernels outlined and lowered to tiles
    "outline_hierarchy_scopes", "outline_incore_scopes", "outline_cluster_scopes", "convert_tensor_to_tile_ops",
    "optimize_orch_tensors", "lower_composite_ops", "flatten_tile_nd_to_2d", "legalize_tile_cast", "auto_tile_matmul_l0",
    "canonicalize_tile_slice",
    "infer_tile_memory_space", "insert_mx_scale_addr", "resolve_backend_op_layouts",
    # the split chain: per-lane AIC / AIV kernels
    "lower_auto_vector_split", "expand_mixed_kernel", "inject_gm_pipe_buffer", "split_vector_kernel",
    # per-core kernels made explicit for codegen: frees name their pops, kernels return their Out parameters
    "stamp_tfree_split", "normalize_return_order",
    # memory planning: every on-chip buffer an address within the chip (docs/memory_planning.md)
    "canonicalize_io_order", "materialize_tensor_strides", "init_mem_ref", "materialize_semantic_aliases",
    "memory_reuse", "allocate_memory_addr",
]
# The same road without memory planning: per-core kernels whose tiles are values, for kernels whose tile shapes
# are not static yet (a whole dynamic-row tensor loaded as one tile) and for studying the split passes alone.
_KERNELS = _DEFAULT[:_DEFAULT.index("normalize_return_order") + 1]

PRESETS: dict[str, list[str]] = {
    # What `pypto compile` runs with no pypto.toml: PyPTO's own order from the program as written to
    # per-lane AIC / AIV kernels (docs/architecture.md, pipeline presets); `PassManager.get_strategy(Default)`
    # runs it too. `full` is its older name, kept for the pypto.toml files that say it.
    "default": list(_DEFAULT),
    "full": list(_DEFAULT),
    "kernels": list(_KERNELS),
    "outline": list(_OUTLINE),
    "tile": list(_TILE),
}


@hookimpl
def pypto_register_pipelines(registry: Any) -> None:
    for name, passes in PRESETS.items():
        registry.register_pipeline(name, passes)

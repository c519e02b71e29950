"""`pypto.ir.pass_manager.PassManager` (docs/architecture.md, the pass manager): the strategy's pipeline as
`pass_names` / `passes` and as `_get_pass_factories` pairs, in PyPTO's default-pipeline order."""

from __future__ import annotations

import pypto.language as pl
from pypto import ir, passes
from pypto.ir.pass_manager import OptimizationStrategy, PassManager

# PyPTO's default pipeline (OptimizationStrategy.Default), in order, by factory name (docs/architecture.md,
# pipeline presets): pypto's strategy pipeline may hold fewer passes, never in another order.
PYPTO_DEFAULT_ORDER = [
    "inline_functions", "unroll_loops", "ctrl_flow_transform", "convert_to_ssa", "simplify",
    "normalize_stmt_structure", "flatten_call_expr", "outline_hierarchy_scopes", "outline_incore_scopes",
    "outline_cluster_scopes", "convert_tensor_to_tile_ops", "optimize_orch_tensors", "lower_composite_ops",
    "flatten_tile_nd_to_2d", "legalize_tile_cast", "auto_tile_matmul_l0", "canonicalize_tile_slice",
    "infer_tile_memory_space", "insert_mx_scale_addr", "resolve_backend_op_layouts", "lower_auto_vector_split",
    "expand_mixed_kernel", "inject_gm_pipe_buffer", "split_vector_kernel", "stamp_tfree_split",
    "normalize_return_order", "skew_cross_core_pipeline", "lower_pipeline_to_slots", "lower_pipeline_loops",
    "canonicalize_io_order", "materialize_tensor_strides", "init_mem_ref", "materialize_semantic_aliases",
    "memory_reuse", "allocate_memory_addr", "fold_no_op_reshape", "fuse_create_assemble_to_slice",
    "derive_call_directions", "auto_derive_task_dependencies", "expand_manual_phase_fence", "simplify",
    "materialize_runtime_scopes", "classify_iter_arg_carry", "insert_comm_fence", "materialize_valid_shape_symbols",
]

SCOPED = """
import pypto.language as pl

@pl.program
class Scoped:
    @pl.function
    def main(self, a: pl.Tensor[[16, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        y = pl.add(a, 1.0)
        y = pl.mul(y, 2.0)
        with pl.at(level=pl.Level.CORE_GROUP):
            out = pl.assemble(out, pl.exp(y), [0, 0])
        return out
"""


def in_order(names: list[str], order: list[str]) -> bool:
    """Whether `names` is a subsequence of `order`."""
    remaining = iter(order)
    return all(any(name == candidate for candidate in remaining) for name in names)


def test_the_subsequence_check_can_fail():
    assert in_order(["convert_to_ssa", "split_vector_kernel"], PYPTO_DEFAULT_ORDER)
    assert not in_order(["split_vector_kernel", "convert_to_ssa"], PYPTO_DEFAULT_ORDER)


def test_pass_names_passes_and_factories_describe_one_pipeline():
    manager = PassManager.get_strategy(OptimizationStrategy.Default)
    factories = PassManager._get_pass_factories(OptimizationStrategy.Default)
    assert [name for name, _ in factories] == manager.pass_names == manager.get_pass_names()
    assert [p.get_name() for p in manager.passes] == manager.pass_names
    for (name, make), held in zip(factories, manager.passes):
        made = make()
        assert made.get_name() == name and made is not held and type(made) is type(held)


def test_the_strategy_pipeline_keeps_pypto_order():
    factory_names = [p.factory_name for p in PassManager(OptimizationStrategy.Default).passes]
    assert factory_names[0] == "inline_functions"  # PyPTO's Default starts there
    assert in_order(factory_names, PYPTO_DEFAULT_ORDER), factory_names


def test_a_prefix_run_through_the_factories_is_the_passes_run_by_hand():
    program = pl.parse(SCOPED)
    result, by_hand = program, program
    for name, make in PassManager._get_pass_factories():
        made = make()
        result = made(result)
        by_hand = getattr(passes, made.factory_name)()(by_hand)  # the registered pass of that name
        if name == "OutlineIncoreScopes":
            break
    else:
        raise AssertionError("the strategy pipeline has no OutlineIncoreScopes")
    ir.assert_structural_equal(result, by_hand)
    assert result.get_function("main_incore_0") is not None
    assert program.get_function("main_incore_0") is None

"""ConvertTensorToTileOps (docs/passes/convert_tensor_to_tile_ops.md): inside InCore functions every tensor op becomes tile ops.

Per InCore function: tensor ops are replaced by their registry tile forms (tensor_to_tile/
function_lowering.py says where the loads go); returned tiles are stored into new Out parameters
that every caller allocates (tensor_to_tile/outputs.py); the function attr `cache_policy` (docs/passes/outline_incore_scopes.md,
a list of (parameter index, CachePolicy)) becomes the `cache` kwarg of every tile.load of those
parameters and is erased. Orchestration and Opaque functions are only touched where they call a
function that gained Out parameters.
"""

from __future__ import annotations

from typing import Any

from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir.enums import FunctionType
from pypto_core.ir.visitor import IRMutator
from pypto_core.ops.registry import create_op_call
from pypto_core.passes.pass_base import Pass
from pypto_plugins.pass_tile.boundary_operands import reject_misplaced_boundary_operands
from pypto_plugins.pass_tile.cube_inside_regions import reject_cube_work_inside_regions
from pypto_plugins.pass_tile.tensor_to_tile.boundary_tails import fold_tails_outside_regions
from pypto_plugins.pass_tile.tensor_to_tile.directions import (
    called_functions,
    classify_parameters,
    propagate_to_callers,
)
from pypto_plugins.pass_tile.tensor_to_tile.function_lowering import PASS, FunctionLowering
from pypto_plugins.pass_tile.tensor_to_tile.in_place_carries import carry_in_place_writes
from pypto_plugins.pass_tile.tensor_to_tile.lane_steering import check_lane_steered_boundaries
from pypto_plugins.pass_tile.tensor_to_tile.outputs import (
    AddedOutputs,
    pass_new_outputs,
    store_returned_tiles,
)
from pypto_plugins.pass_tile.tensor_to_tile.scalar_fill_loops import fill_constant_scalar_loops
from pypto_plugins.pass_tile.tensor_to_tile.staged_updates import stage_full_tensor_updates
from pypto_plugins.pass_tile.tensor_to_tile.wrapper_outputs import forward_wrapper_outputs
from pypto_plugins.pass_tile.vector_outside_regions import reject_vector_work_outside_regions
from pypto_plugins.pass_tile.writes_through_views import reject_writes_through_views


def cache_policy_of(func: F.Function) -> dict[int, int]:
    return {int(i): int(policy) for i, policy in func.attrs.get("cache_policy", ())}


class _CacheKwargs(IRMutator):
    """tile.loads the user wrote of a parameter with a cache policy get its `cache` kwarg too."""

    def __init__(self, func: F.Function, policy: dict[int, int]) -> None:
        self.policy = {id(func.params[i]): p for i, p in policy.items() if i < len(func.params)}

    def visit_call(self, call: E.Call) -> E.Expr:
        call = super().visit_call(call)  # type: ignore[assignment]
        if isinstance(call.op, E.GlobalVar) or call.op.name != "tile.load" or "cache" in call.kwargs:
            return call
        policy = self.policy.get(id(call.args[0]))
        if policy is None:
            return call
        rebuilt = create_op_call("tile.load", list(call.args), {**call.kwargs, "cache": policy}, span=call.span)
        return rebuilt.with_fields(attrs=dict(call.attrs)) if call.attrs else rebuilt


def lower_function(func: F.Function, called: bool = True) -> tuple[F.Function, AddedOutputs]:
    check_lane_steered_boundaries(func, PASS)
    reject_writes_through_views(func, PASS)
    func = stage_full_tensor_updates(func)
    func = fill_constant_scalar_loops(func)
    func = carry_in_place_writes(func)
    policy = cache_policy_of(func)
    lowering = FunctionLowering(func, policy)
    body = lowering.run()
    attrs = {k: v for k, v in func.attrs.items() if k != "cache_policy"}
    lowered = func.with_fields(body=body, attrs=attrs)
    if policy:
        lowered = _CacheKwargs(lowered, policy).visit_function(lowered)  # type: ignore[assignment]
    stored, added = store_returned_tiles(lowered)  # type: ignore[arg-type]
    # docs/passes/lower_auto_vector_split.md, outside the regions: a cube op's conversion tail outside every region is done by its store.
    folded = fold_tails_outside_regions(stored.body, lowering.cube_tails, func.name, PASS)
    result = stored if folded is stored.body else stored.with_fields(body=folded)
    reject_vector_work_outside_regions(result, PASS, "it is lowered to the vector op {op}")  # type: ignore[arg-type]
    reject_misplaced_boundary_operands(result, PASS)  # type: ignore[arg-type]
    reject_cube_work_inside_regions(result, PASS)  # type: ignore[arg-type]
    # A root kernel's declared parameters are the program's interface (tensor_to_tile/directions.py).
    result = classify_parameters(result, PASS, keep_directions=not called)  # type: ignore[arg-type]
    return result, added  # type: ignore[return-value]


def _forward_through_wrappers(funcs: list[F.Function], added: dict[str, AddedOutputs]
                              ) -> tuple[list[F.Function], list[E.Call]]:
    """Phase 2a: wrappers take and forward their kernels' new outputs (a wrapper of a wrapper too); `added`
    gains the wrappers, whose callers then allocate them. Also the calls that already pass them."""
    passing: list[E.Call] = []
    while True:
        changed = False
        for i, func in enumerate(funcs):
            if func.name in added:
                continue
            wrapped, forwarded, call = forward_wrapper_outputs(func, added)
            if forwarded is not None and call is not None:
                funcs[i] = wrapped
                added[func.name] = forwarded
                passing.append(call)
                changed = True
        if not changed:
            return funcs, passing


class ConvertTensorToTileOps(Pass):
    """Lower the tensor ops of InCore functions to tile ops."""

    name = "ConvertTensorToTileOps"
    factory_name = "convert_tensor_to_tile_ops"
    required = ("SSAForm", "SplitIncoreOrch", "NormalizedStmtStructure")
    produced = ("SSAForm", "IncoreTileOps", "NormalizedStmtStructure", "AivSplitValid")
    invalidated = ("AivSplitValid",)
    description = ("Inside InCore functions, tensor ops become tile ops: parameters are loaded, results "
                   "stored, returned tiles go out through new Out parameters.")

    def run(self, program: F.Program, ctx: Any) -> F.Program:
        funcs: list[F.Function] = []
        added: dict[str, AddedOutputs] = {}
        called = called_functions(program.functions.values())
        for func in program.functions.values():
            if func.func_type is not FunctionType.InCore:
                funcs.append(func)
                continue
            lowered, outputs = lower_function(func, func.name in called)
            funcs.append(lowered)
            if outputs.params:
                added[func.name] = outputs
        funcs, passing = _forward_through_wrappers(funcs, added)
        funcs = propagate_to_callers(pass_new_outputs(funcs, added, passing))
        return program.with_functions(funcs)

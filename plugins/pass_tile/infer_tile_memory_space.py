"""InferTileMemorySpace (docs/passes/infer_tile_memory_space.md): every tile of an InCore function gets a memory space.

Two steps per function, both driven by registry data (OpDef.input_memory / output_memory): the
demands of the consumers (memory_space/demands.py), then a forward walk deciding each result's space
and moving operands their op does not accept (memory_space/placement.py). A loop whose body yields a
carry in another space than its init forces that space on the init; the function is then walked
again from its input (a couple of walks at most: each init is forced once).
"""

from __future__ import annotations

from typing import Any

from pypto_core.errors import InternalError, UserError
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir.enums import CORE_KERNEL_TYPES, FunctionType, MemorySpace
from pypto_core.ir.visitor import IRMutator
from pypto_core.passes.pass_base import Pass
from pypto_core.passes.verifier_registry import errors_only
from pypto_plugins.pass_tile.boundary_operands import reject_misplaced_boundary_operands
from pypto_plugins.pass_tile.memory_space.demands import collect_demands
from pypto_plugins.pass_tile.memory_space.loop_invariant_residency import (
    MAT_BRIDGE_MARKER,
    MarkBridgeLoads,
    hoist_loop_invariant_operands,
)
from pypto_plugins.pass_tile.memory_space.placement import Placement, check_params
from pypto_plugins.pass_tile.memory_space.tile_capacity import reject_tiles_beyond_capacity
from pypto_plugins.pass_tile.vector_outside_regions import reject_vector_work_outside_regions
from pypto_plugins.pass_tile.verifiers.acc_to_gm_store import verify_acc_to_gm_store
from pypto_plugins.pass_tile.verifiers.tile_memory_inferred import verify_tile_memory_inferred

_MAX_WALKS = 16  # each walk forces at least one more loop init; real kernels need two or three


def place_function(func: F.Function) -> F.Function:
    check_params(func.params, func.name)
    demands = collect_demands(func.body)
    forced: dict[int, MemorySpace] = {}
    for _ in range(_MAX_WALKS):
        placement = Placement(demands, forced, func)
        body = placement.body(func.body)
        if not placement.changed:
            body = placement.finish(body)
            placed = func if body is func.body else func.with_fields(body=body)
            reject_vector_work_outside_regions(placed, "InferTileMemorySpace",  # type: ignore[arg-type]
                                               "its consumers place its {op} in Vec")
            reject_misplaced_boundary_operands(placed, "InferTileMemorySpace")  # type: ignore[arg-type]
            return placed  # type: ignore[return-value]
    raise InternalError(f"InferTileMemorySpace: the loop carries of '{func.name}' did not settle in "
                        f"{_MAX_WALKS} walks")


class InferTileMemorySpace(Pass):
    """Give every tile in InCore functions a memory space, moving operands where their op needs."""

    name = "InferTileMemorySpace"
    factory_name = "infer_tile_memory_space"
    required = ("SSAForm", "IncoreTileOps", "SplitIncoreOrch", "NormalizedStmtStructure")
    produced = ("SSAForm", "TileMemoryInferred", "NormalizedStmtStructure", "AivSplitValid", "AccToGmStoreValid")
    invalidated = ("AivSplitValid",)
    description = ("Decide the memory space of every tile from its producer and consumers; insert tile.move "
                   "where an operand is in a space its op does not accept.")

    def run(self, program: F.Program, ctx: Any) -> F.Program:
        reject_misplaced_core_functions(program)
        funcs = [place_function(MarkBridgeLoads().visit_function(f)) if f.func_type is FunctionType.InCore else f
                 for f in program.functions.values()]
        for f in funcs:
            if f.func_type is FunctionType.InCore:
                reject_tiles_beyond_capacity(f, ctx.backend)
        if any(a is not b for a, b in zip(funcs, program.functions.values())):
            funcs = list(hoist_loop_invariant_operands(program.with_functions(funcs), ctx.backend)
                         .functions.values())
        funcs = [_StripMatBridgeMarker().visit_function(f) for f in funcs]
        if all(a is b for a, b in zip(funcs, program.functions.values())):
            return program
        placed = program.with_functions(funcs)
        reject_narrowing_acc_stores(placed)
        return placed


# The private marker of the GM -> Mat bridge loads: once the residency step has read it, nothing does
# (docs/passes/infer_tile_memory_space.md, loop-invariant Mat residency).
class _StripMatBridgeMarker(IRMutator):
    """Every call of the function loses the marker attr; its other attrs stay, in order."""

    def visit_call(self, call: E.Call) -> E.Expr:
        call = super().visit_node(call)  # type: ignore[assignment]
        if MAT_BRIDGE_MARKER not in call.attrs:
            return call
        return call.with_fields(attrs={k: v for k, v in call.attrs.items() if k != MAT_BRIDGE_MARKER})


def reject_misplaced_core_functions(program: F.Program) -> None:
    """A hand-written AIC / AIV function states its own memory spaces (this pass places InCore kernels only):
    an operand in a space its op does not accept is the program's mistake, reported where it is written."""
    for func in program.functions.values():
        if func.func_type not in CORE_KERNEL_TYPES:
            continue
        findings = errors_only(verify_tile_memory_inferred(func))
        if findings:
            message = findings[0].message
            prefix = f"{func.func_type.name} function '{func.name}': "
            raise UserError(f"InferTileMemorySpace: {prefix}{message.removeprefix(prefix)}; a hand-written {func.func_type.name} function states its own "
                            f"memory spaces (only InCore kernels are placed): give each tile its space "
                            f"(target_memory=...) and move an operand into a space its op accepts (pl.move)", findings[0].span)


def reject_narrowing_acc_stores(program: F.Program) -> None:
    """Once spaces are known, an accumulator stored straight into a tensor the cube's output path cannot
    narrow to is the program's mistake (the verifier's message says the fix), not this pass failing to
    establish AccToGmStoreValid."""
    findings = errors_only(verify_acc_to_gm_store(program))
    if findings:
        raise UserError(f"InferTileMemorySpace: {findings[0].message}", findings[0].span)

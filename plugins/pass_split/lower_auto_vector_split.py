"""LowerAutoVectorSplit (docs/passes/lower_auto_vector_split.md): mixed InCore functions with a function-level split become the explicit
split_aiv form, right before ExpandMixedKernel.

Scope (docs/passes/lower_auto_vector_split.md, scope): an InCore function with a split mode UP_DOWN / LEFT_RIGHT, not yet
split_aiv, whose affinity rollup is MIXED (the classification ExpandMixedKernel uses). A pure-vector
split function passes through untouched (ExpandMixedKernel makes it a plain AIV function); a mixed one
whose body still holds a scope is rejected. Functions with `pl.split_aiv` regions take the region path
first (vector_split/region_path.py).
"""

from __future__ import annotations

from typing import Any

from pypto_core.analysis.affinity import classify_call_affinity, combine_all
from pypto_core.analysis.walk import op_calls
from pypto_core.errors import UserError
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import FunctionType, SplitMode
from pypto_core.ir.visitor import IRVisitor
from pypto_core.ops.opdef import CoreAffinity
from pypto_core.passes.pass_base import Pass, PassOptions
from pypto_plugins.pass_split.vector_split.auto_path import lower_auto_function
from pypto_plugins.pass_split.vector_split.region_path import lower_region_function
from pypto_plugins.pass_split.vector_split.synthesized_regions import with_synthesized_region
from pypto_plugins.pass_split.verifiers.hard_syncall_occupancy import hard_syncalls, lane_control

PASS = "LowerAutoVectorSplit"


class _Scopes(IRVisitor):
    def __init__(self) -> None:
        self.scopes: list[S.ScopeStmt] = []
        self.regions: list[S.SplitAivScopeStmt] = []

    def visit_scope_stmt(self, s: S.ScopeStmt) -> None:
        (self.regions if isinstance(s, S.SplitAivScopeStmt) else self.scopes).append(s)
        super().visit_scope_stmt(s)


def scopes_of(func: F.Function) -> _Scopes:
    walker = _Scopes()
    walker.visit_stmt(func.body)
    return walker


def rollup_affinity(func: F.Function) -> CoreAffinity:
    """The function's affinity: every call's, combined; scopes are looked through (docs/passes/lower_auto_vector_split.md)."""
    return combine_all(classify_call_affinity(c) for c in op_calls(func.body))


def lower_function(func: F.Function, synthesize_regions: bool = False) -> F.Function:
    if func.func_type is not FunctionType.InCore:
        return func
    found = scopes_of(func)
    if found.regions:
        reject_lane_steered_hard_barriers(func)
        return lower_region_function(func)  # decided before the AUTO path (docs/passes/lower_auto_vector_split.md)
    if func.attrs.get("split_aiv"):
        return func  # already in the explicit form
    mode = func.split
    if mode not in (SplitMode.UP_DOWN, SplitMode.LEFT_RIGHT):
        return func
    if rollup_affinity(func) is not CoreAffinity.MIXED:
        return func  # pure vector: nothing to converge; ExpandMixedKernel makes it an AIV function
    if found.scopes:
        scope = found.scopes[0]
        raise UserError(f"{PASS}: InCore function '{func.name}' with split={mode.name} body still contains a scope "
                        f"({type(scope).__name__}); halving the whole function does not cross scope boundaries: "
                        f"remove the inner scope (outline it with OutlineIncoreScopes, or write its body inline)",
                        scope.span)
    lowered = lower_auto_function(func, mode)
    return with_synthesized_region(lowered, mode) if synthesize_regions else lowered


def reject_lane_steered_hard_barriers(func: F.Function) -> None:
    """A hard barrier (system.syncall mode='hard') inside a region, under a loop or if its lane index steers: the
    other lane does not arrive as often and the barrier never completes (the rule HardSyncallOccupancyValid
    checks of AIV functions, here of the user's region, located)."""
    for call, steered_by in hard_syncalls(func):
        if steered_by is not None:
            raise UserError(f"{PASS}: in InCore function '{func.name}', a hard {call.op.name} "
                            f"{lane_control(steered_by)} of a pl.split_aiv region: the other AIV lane does not "
                            f"arrive as often and the barrier never completes; move it out of the lane-dependent "
                            f"loop or branch", call.span)


class LowerAutoVectorSplitOptions(PassOptions):
    synthesize_regions: bool = False
    """After the AUTO path, wrap a single straight-line vector phase in a pl.split_aiv region when the
    AivSplitLoweredValid verifier accepts it (docs/passes/lower_auto_vector_split.md); off: the flat form."""


class LowerAutoVectorSplit(Pass):
    """Lower AUTO pl.split mixed kernels to the explicit split_aiv form (docs/passes/lower_auto_vector_split.md)."""

    Options = LowerAutoVectorSplitOptions

    name = PASS
    factory_name = "lower_auto_vector_split"
    required = ("SSAForm", "IncoreTileOps", "SplitIncoreOrch", "TileOps2D", "TileMemoryInferred",
                "NormalizedStmtStructure", "AivSplitValid")
    produced = ("SSAForm", "IncoreTileOps", "SplitIncoreOrch", "TileOps2D", "TileMemoryInferred",
                "NormalizedStmtStructure", "AivSplitLoweredValid")
    invalidated = ("AivSplitValid",)
    description = ("Halve the vector work of mixed kernels split with pl.split across the two AIV lanes: "
                   "tile.aiv_shard / tile.aic_gather at the cube-vector boundaries (docs/passes/lower_auto_vector_split.md).")

    def run(self, program: F.Program, ctx: Any) -> F.Program:
        synthesize = self.options.synthesize_regions  # type: ignore[attr-defined]
        funcs = [lower_function(f, synthesize) for f in program.functions.values()]
        if all(a is b for a, b in zip(funcs, program.functions.values())):
            return program
        return program.with_functions(funcs)

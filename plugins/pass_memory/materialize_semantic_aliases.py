"""MaterializeSemanticAliases (docs/passes/materialize_semantic_aliases.md): the must-alias buffers of loop-carried
tiles become real. Each loop's carried MemRef (the one InitMemRef gave init, carry and result) is pushed down onto
the producer of the yielded value, so the producer writes the carried buffer in place and no copy is needed.

Per function (Orchestration functions are left alone): plan (materialize_semantic_aliases_steps/retarget.py),
apply (apply.py); then the planner's extras: PTOAS copies a loop's yield that is still elsewhere into the carried
buffer (yield_fixup.py), DSA_RP coalesces accumulator if-phis (acc_if_phi.py), does the copy for loops and ifs
and repairs identity copies. PYPTO leaves that to
MemoryReuse. No statement is added or removed under PYPTO.
"""

from __future__ import annotations

from typing import Any

from pypto_core.ir import function as F
from pypto_core.ir.enums import FunctionType
from pypto_core.passes.memory_planner import MemoryPlanner, active_memory_planner
from pypto_core.passes.pass_base import Pass
from pypto_plugins.pass_memory.acc_if_phi import coalesce_acc_if_phis
from pypto_plugins.pass_memory.materialize_semantic_aliases_steps.apply import PlanApplier
from pypto_plugins.pass_memory.materialize_semantic_aliases_steps.retarget import Retargeter
from pypto_plugins.pass_memory.materialize_semantic_aliases_steps.yield_fixup import (
    IdentityCopyRepair,
    YieldFixup,
)


def materialize_function(func: F.Function, backend: Any, planner: MemoryPlanner) -> F.Function:
    if func.func_type is FunctionType.Orchestration:
        return func
    body = func.body
    plans = Retargeter(body, backend).run()
    if plans:
        body = PlanApplier(plans).stmt(body)  # type: ignore[arg-type]
    if planner is MemoryPlanner.PTOAS:
        body = YieldFixup(fix_ifs=False).visit_function_body(body)
    elif planner is MemoryPlanner.DSA_RP:
        body = coalesce_acc_if_phis(body, backend, MaterializeSemanticAliases.name)
        body = YieldFixup(fix_ifs=True).visit_function_body(body)
        body = IdentityCopyRepair().visit_stmt(body)
    return func if body is func.body else func.with_fields(body=body)  # type: ignore[return-value]


class MaterializeSemanticAliases(Pass):
    """Put each loop-carried tile's producer on the carried buffer, so the loop needs no copy."""

    name = "MaterializeSemanticAliases"
    factory_name = "materialize_semantic_aliases"
    required = ("NormalizedStmtStructure", "SplitIncoreOrch", "HasMemRefs", "IncoreTileOps", "TileOps2D")
    produced = ("NormalizedStmtStructure",)
    invalidated = ()
    description = ("Retarget the producer of each loop's yielded tile onto the carried MemRef (must-alias "
                   "buffers); under PTOAS / DSA_RP also copy a yield that cannot move into the carried buffer.")

    def run(self, program: F.Program, ctx: Any) -> F.Program:
        backend = getattr(ctx, "backend", None)
        planner = active_memory_planner(ctx)
        funcs = [materialize_function(f, backend, planner) for f in program.functions.values()]
        if all(a is b for a, b in zip(funcs, program.functions.values())):
            return program
        return program.with_functions(funcs)

"""VectorKernelSplit (docs/passes/split_vector_kernel.md): the split AIV functions are in their per-lane form and dispatch both lanes.
SplitVectorKernel's exit invariant: every AIV function marked `split_aiv` carries `dual_aiv_dispatch=True`
(orchestration code generation reads only that attr, never the split mode)."""

from __future__ import annotations

from pypto_core.ir.enums import FunctionType
from pypto_core.ir.function import Function, Program
from pypto_core.passes.verifier_registry import Diagnostic, error

RULE = "VectorKernelSplit"


def verify_vector_kernel_split(program: Program | Function) -> list[Diagnostic]:
    funcs = [program] if isinstance(program, Function) else list(program.functions.values())
    return [error(RULE, f"AIV function '{f.name}' is split_aiv but not marked dual_aiv_dispatch: both AIV lanes must "
                        f"be dispatched (run SplitVectorKernel)", f.span)
            for f in funcs
            if f.func_type is FunctionType.AIV and f.attrs.get("split_aiv") and f.attrs.get("dual_aiv_dispatch") is not True]

"""SplitVectorKernel (docs/passes/split_vector_kernel.md): after ExpandMixedKernel, no function body is halved here any more.

* an AIC / AIV function marked `split_aiv` with a function-level split mode keeps its body; the AIV one is
  stamped `dual_aiv_dispatch=True` (docs/passes/split_vector_kernel.md, rules: a split split_aiv function dispatches both
  AIV lanes);
* `split_aiv` without a function-level mode (NONE regions, or regions of different modes): docs/passes/lower_auto_vector_split.md -- the
  AIV function is stamped `dual_aiv_dispatch=True` so both lanes run the body, and no `split` is invented.
  If its transfers carry the codes of a single real mode, the mode was lost upstream: InternalError;
* an AIV function marked `dual_aiv_dispatch` (and not split_aiv, no split mode), on a backend with
  `requires_no_split_dual_aiv_dispatch`: lane 0 runs the body, lane 1 replays it on empty tiles
  (vector_kernel/no_split_dispatch.py);
* an external function (`external_source`: its code is given, its body is empty) is never rewritten: a
  split_aiv AIV one only gets `dual_aiv_dispatch=True` appended;
* everything else passes through -- a function with `split` but no `split_aiv` included.
"""

from __future__ import annotations

from typing import Any

from pypto_core.errors import InternalError
from pypto_core.ir import function as F
from pypto_core.ir.enums import CORE_KERNEL_TYPES, FunctionType
from pypto_core.passes.pass_base import Pass
from pypto_plugins.pass_split.split_axis.transfer_modes import single_transfer_mode
from pypto_plugins.pass_split.vector_kernel.no_split_dispatch import dual_dispatch_body

PASS = "SplitVectorKernel"


def split_function(func: F.Function, backend: Any) -> F.Function:
    if func.func_type in CORE_KERNEL_TYPES and func.attrs.get("split_aiv"):
        if func.split is None and not func.is_external:
            lost = single_transfer_mode(func)
            if lost is not None:
                raise InternalError(f"{PASS}: {func.func_type.name} function '{func.name}' is split_aiv and its "
                                    f"transfers carry {lost.name} split codes, but it has no function-level "
                                    f"split: OutlineIncoreScopes / LowerAutoVectorSplit must propagate split "
                                    f"with split_aiv (docs/passes/split_vector_kernel.md)")
        if func.func_type is FunctionType.AIV and func.attrs.get("dual_aiv_dispatch") is not True:
            return func.with_fields(attrs={**func.attrs, "dual_aiv_dispatch": True})  # type: ignore[return-value]
        return func
    if (func.func_type is FunctionType.AIV and func.attrs.get("dual_aiv_dispatch") and func.split is None
            and not func.is_external and backend.requires_no_split_dual_aiv_dispatch):
        return dual_dispatch_body(func)
    return func


class SplitVectorKernel(Pass):
    """Stamp split_aiv kernels and build the no-split dual-AIV replay (docs/passes/split_vector_kernel.md)."""

    name = PASS
    factory_name = "split_vector_kernel"
    required = ("SSAForm", "MixedKernelExpanded")
    produced = ("SSAForm", "VectorKernelSplit", "NormalizedStmtStructure")
    invalidated = ()
    description = ("Stamp split_aiv AIC/AIV functions (dual_aiv_dispatch on the AIV) and, on backends that need "
                   "it, replay an unsplit AIV body on lane 1 with empty tiles (docs/passes/split_vector_kernel.md).")

    def run(self, program: F.Program, ctx: Any) -> F.Program:
        backend = ctx.backend
        funcs = [split_function(f, backend) for f in program.functions.values()]
        if all(a is b for a, b in zip(funcs, program.functions.values())):
            return program
        return program.with_functions(funcs)

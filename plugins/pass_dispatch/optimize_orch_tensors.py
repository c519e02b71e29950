"""OptimizeOrchTensors: the orchestration's tensors around InCore calls, tidied right after tile conversion
(docs/passes/optimize_orch_tensors.md). Patterns 1-4 run in order, each on the previous one's result:

1. an Out parameter merged into an In parameter whose buffer nobody reads afterwards (orch_tensors/reuse_inputs);
2. an Out parameter whose result is assembled into a parent typed with the parent's strides;
3. an InCore assemble loop turned into stores straight into the Out parameter (orch_tensors/assemble_loops);
4. an In parameter passed a slice typed with the slice's parent's strides (2 and 4: orch_tensors/parent_strides);
5. a kernel marked `windowize=True` called with just the windows it touches (orch_tensors/windows).
"""

from __future__ import annotations

from typing import Any

from pypto_core.ir import function as F
from pypto_core.ir.enums import FunctionType
from pypto_core.passes.pass_base import Pass
from pypto_plugins.pass_dispatch.orch_tensors.assemble_loops import assemble_loops_to_stores
from pypto_plugins.pass_dispatch.orch_tensors.parent_strides import (
    assembled_result_strides,
    sliced_input_strides,
)
from pypto_plugins.pass_dispatch.orch_tensors.reuse_inputs import reuse_inputs
from pypto_plugins.pass_dispatch.orch_tensors.windows import externalize_windows

PATTERNS = (reuse_inputs, assembled_result_strides, assemble_loops_to_stores, sliced_input_strides,
            externalize_windows)


class OptimizeOrchTensors(Pass):
    """Reuse dead input buffers for InCore results, give windowed InCore tensors their parents' strides, and
    store assembled tiles straight into Out parameters."""

    name = "OptimizeOrchTensors"
    factory_name = "optimize_orch_tensors"
    description = ("Reuse an input buffer nobody reads again as an InCore call's output, type InCore tensors that "
                   "are windows of a parent with the parent's strides, and turn InCore assemble loops into stores.")
    required = ("SplitIncoreOrch", "IncoreTileOps")
    produced = ("SplitIncoreOrch", "IncoreTileOps")

    def run(self, program: F.Program, ctx: Any) -> F.Program:
        if not any(f.func_type is FunctionType.InCore for f in program.functions.values()):
            return program
        for pattern in PATTERNS:
            program = pattern(program)
        return program

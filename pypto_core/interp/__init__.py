"""The numpy reference machine (docs/architecture.md, the reference machine).

    from pypto_core.interp import Machine, make_inputs, run_program, compare_outputs

    inputs = make_inputs(program.get_function("main"), seed=0)
    before = run_program(program, inputs)            # {"return": ..., "out": ...}
    after = run_program(compiled, inputs)
    checks = compare_outputs(before, after)          # per output: ok / first differing index

Op semantics come only from each OpDef's `evaluate`; its signature is documented in
pypto_core/interp/context.py (EvalContext). Tolerances per dtype: pypto_core/interp/tolerance.py.
"""

from pypto_core.interp.context import EvalContext
from pypto_core.interp.errors import CheckRunError, DeadlockError, MachineError, PassCheckRunError
from pypto_core.interp.inputs import bind_arguments, copy_inputs, make_inputs
from pypto_core.interp.machine import Machine
from pypto_core.interp.outputs import OutputCheck, collect_outputs, compare_outputs, run_program
from pypto_core.interp.shape import CoreGroupShape, shape_from_backend
from pypto_core.interp.tolerance import Comparison, compare_values, tolerance_for

__all__ = [
    "EvalContext", "CheckRunError", "PassCheckRunError", "DeadlockError", "MachineError", "bind_arguments", "copy_inputs",
    "make_inputs", "Machine", "OutputCheck", "collect_outputs", "compare_outputs", "run_program",
    "CoreGroupShape", "shape_from_backend", "Comparison", "compare_values", "tolerance_for",
]

"""The numpy reference machine (docs/architecture.md, the reference machine).

    from pypto_core.interp import Machine, make_inputs, run_program, compare_outputs

    inputs = make_inputs(program.get_function("main"), seed=0)
    before = run_program(program, inputs)            # {"return": ..., "out": ...}
    after = run_program(compiled, inputs)
    checks = compare_outputs(before, after)          # per output: ok / first differing index

Op semantics come only from each OpDef's `evaluate`; its signature is documented in
pypto_core/interp/context.py (EvalContext). Tolerances per dtype: pypto_core/interp/tolerance.py.
"""

from __future__ import annotations

import importlib
from typing import Any

# Each public name and the module defining it. Loaded on first use (PEP 562): a plugin that imports
# `pypto_core.interp.errors` to raise a MachineError must not load the machine, numpy's dtypes extension and
# greenlet into a process that only compiles.
_EXPORTS = {
    "EvalContext": "context",
    "CheckRunError": "errors", "DeadlockError": "errors", "MachineError": "errors", "PassCheckRunError": "errors",
    "bind_arguments": "inputs", "copy_inputs": "inputs", "make_inputs": "inputs",
    "Machine": "machine",
    "OutputCheck": "outputs", "collect_outputs": "outputs", "compare_outputs": "outputs", "run_program": "outputs",
    "CoreGroupShape": "shape", "shape_from_backend": "shape",
    "Comparison": "tolerance", "compare_values": "tolerance", "tolerance_for": "tolerance",
}


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'pypto_core.interp' has no attribute '{name}'")
    value = getattr(importlib.import_module(f"pypto_core.interp.{module}"), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))


__all__ = sorted(_EXPORTS)

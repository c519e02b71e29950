"""Running a program on inputs and collecting what it produced: return values and the final
contents of its Out / InOut parameters; comparing two such collections."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from pypto_core.collector import pauses_collector
from pypto_core.interp.inputs import added_out_params, base_name, copy_inputs, make_inputs
from pypto_core.interp.machine import Machine
from pypto_core.interp.shape import CoreGroupShape
from pypto_core.interp.tolerance import Comparison, Tolerance, compare_values
from pypto_core.ir.enums import ParamDirection
from pypto_core.ir.function import Function, Program


def collect_outputs(func: Function, args: Mapping[str, Any], returned: Any) -> dict[str, Any]:
    """Outputs by label: `return` / `return[i]`, then each Out / InOut parameter's base name."""
    out: dict[str, Any] = {}
    n = len(func.return_types)
    values = returned if (n > 1 and isinstance(returned, tuple)) else (returned,) if n == 1 else ()
    for i, value in enumerate(values):
        out["return" if n == 1 else f"return[{i}]"] = value
    for p, direction in func.param_items():
        if direction in (ParamDirection.Out, ParamDirection.InOut):
            out[base_name(p.name_hint)] = args[base_name(p.name_hint)]
    return out


@pauses_collector
def run_program(program: Program | Function, inputs: Mapping[str, Any], entry: str | None = None,
                shape: CoreGroupShape | None = None) -> dict[str, Any]:
    """Execute on a copy of `inputs`; the outputs by label (see collect_outputs). An Out parameter the inputs do
    not give (one a pass added to the entry) is allocated uninitialised and is no output of its own: what it
    holds is compared as the result it backs."""
    machine = Machine(program, shape=shape)
    func = machine.entry_function(entry)
    args = copy_inputs(inputs)
    added = added_out_params(func, inputs)
    if added:
        args.update({k: v for k, v in make_inputs(func).items() if k in added})
    returned = machine.run(func.name, args)
    outputs = collect_outputs(func, args, returned)
    for name in added:
        outputs.pop(name, None)
    return outputs


@dataclass(frozen=True)
class OutputCheck:
    label: str
    comparison: Comparison
    shape: tuple[int, ...]
    dtype: str


def compare_outputs(expected: Mapping[str, Any], actual: Mapping[str, Any],
                    overrides: dict[str, Tolerance] | None = None) -> list[OutputCheck]:
    """One check per expected output (and one for any output only the actual run has); `overrides`: the
    tolerance of some dtypes (tolerance.py)."""
    checks = []
    for label, exp in expected.items():
        arr = np.asarray(exp)
        if label not in actual:
            checks.append(OutputCheck(label, Comparison(False, "missing", expected="an output", actual="nothing"),
                                      arr.shape, str(arr.dtype)))
            continue
        checks.append(OutputCheck(label, compare_values(exp, actual[label], overrides), arr.shape, str(arr.dtype)))
    for label in actual:
        if label not in expected:
            arr = np.asarray(actual[label])
            checks.append(OutputCheck(label, Comparison(False, "extra", expected="nothing", actual="an output"),
                                      arr.shape, str(arr.dtype)))
    return checks

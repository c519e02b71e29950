"""Running a small program against a numpy formula: on the reference machine as written, and after the default
pipeline on both bundled backends (every pass verified, round-tripped and checked on the machine)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

import pypto.language as pl
from pypto_core.interp import run_program, shape_from_backend
from pypto_core.ir.function import Program
from pypto_core.testing import checked_pipeline, same_results

BACKENDS = ("Ascend910B", "Ascend950")
HEADER = "import pypto.language as pl\n\n"


def _compare(label: str, outputs: Mapping[str, Any], expected: Mapping[str, Any],
             masks: Mapping[str, Any] | None) -> None:
    for name, want in expected.items():
        assert name in outputs, f"{label}: no output '{name}' (outputs: {sorted(outputs)})"
        got, want = np.asarray(outputs[name]), np.asarray(want)
        mask = None if masks is None else masks.get(name)
        if mask is not None:  # only the defined elements
            got, want = got[mask], want[mask]
        np.testing.assert_array_equal(got, want, err_msg=f"{label}: output '{name}'")


def as_written(program: Program | str, inputs: Mapping[str, Any], expected: Mapping[str, Any],
               backend: str = BACKENDS[0], masks: Mapping[str, Any] | None = None) -> Program:
    program = pl.parse(HEADER + program) if isinstance(program, str) else program
    _compare(f"as written ({backend})", run_program(program, inputs, None, shape_from_backend(backend)),
             expected, masks)
    return program


def compiled(program: Program | str, inputs: Mapping[str, Any], expected: Mapping[str, Any], backend: str,
             masks: Mapping[str, Any] | None = None) -> Program:
    """The program through the default pipeline: same outputs as the source program (generated inputs) and
    the numpy formula's on `inputs`."""
    program = as_written(program, inputs, expected, backend, masks)
    after = checked_pipeline(backend).run(program)
    same_results(program, after)
    _compare(f"after the default pipeline ({backend})",
             run_program(after, inputs, None, shape_from_backend(backend)), expected, masks)
    return after

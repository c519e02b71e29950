"""Running a PyPTO-style kernel against an independent numpy formula, as written and after the default pipeline.

A corpus test builds a program with `@pl.program` inside a parametrised builder (so the DSL reads the
builder's closure values: docs/dsl.md, values from the enclosing Python scope), draws inputs with numpy, writes the expected outputs with numpy
itself (never with the reference machine's evaluators), and calls `check_kernel`. The program is run on the
reference machine as written, then compiled with the `default` preset (every pass verified, printed and
re-parsed) and run again; both runs must match the formula.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

import numpy as np

from pypto_core.config import parse_config_text, resolve_config
from pypto_core.interp import run_program, shape_from_backend
from pypto_core.interp.tolerance import compare_values
from pypto_core.ir.function import Program
from pypto_core.passes.instruments.roundtrip import make_roundtrip_instrument
from pypto_core.passes.manager import PassManager

BACKEND = "Ascend910B"


@cache
def default_pipeline(backend: str = BACKEND) -> PassManager:
    loaded = parse_config_text(f'backend = "{backend}"\nverify = "basic"\n[pipeline]\npasses = ["default"]\n',
                               "<pypto corpus>")
    resolved = resolve_config(loaded)
    return PassManager(resolved.passes, backend=resolved.backend, verify="basic",
                       instruments=[make_roundtrip_instrument()])


def _check(label: str, outputs: Mapping[str, Any], expected: Mapping[str, Any]) -> None:
    for name, want in expected.items():
        assert name in outputs, f"{label}: no output '{name}' (outputs: {sorted(outputs)})"
        cmp = compare_values(np.asarray(want), outputs[name])
        assert cmp.ok, f"{label}: output '{name}' differs from the numpy formula: {cmp.describe()}"


def check_kernel(program: Program, inputs: Mapping[str, Any], expected: Mapping[str, Any],
                 entry: str | None = None, backend: str = BACKEND, compile: bool = True) -> Program | None:
    """Run `program` on `inputs` and compare the outputs named in `expected` (a `return` label or an Out /
    InOut parameter's name); then the same after the default pipeline (unless `compile=False`, for a
    kernel the pipeline rejects on purpose). Returns the compiled program."""
    shape = shape_from_backend(backend)
    _check("as written", run_program(program, inputs, entry, shape), expected)
    if not compile:
        return None
    after = default_pipeline(backend).run(program)
    _check("after the default pipeline", run_program(after, inputs, entry, shape), expected)
    return after

"""The default pipeline under check-run and round trip, and a before/after comparison on the machine, shared by
the regression tests of this plugin."""

from __future__ import annotations

from pypto_core.interp import Machine, compare_outputs, make_inputs, run_program, shape_from_backend
from pypto_core.ir.enums import FunctionType
from pypto_core.ir.function import Program
from pypto_core.language.api import parse as parse_text
from pypto_core.passes.manager import PassManager
from pypto_core.testing import checked_pipeline

SEEDS = (0, 1)


def default_pipeline(backend: str, preset: str = "default") -> PassManager:
    return checked_pipeline(backend, preset)


def compile_and_compare(text: str, backend: str, filename: str = "fuzz_regression.py",
                        preset: str = "default") -> Program:
    """The default pipeline (check-run, round trip); then every entry's outputs, before and after. `preset`
    "kernels" stops before memory planning (for a kernel whose tiles have no static shape or do not fit)."""
    before = parse_text(text, filename)
    after = default_pipeline(backend, preset).run(before)
    shape = shape_from_backend(backend)
    compared = 0
    for entry in Machine(before, shape=shape).roots():
        for seed in SEEDS:
            inputs = make_inputs(entry, seed=seed)
            checks = compare_outputs(run_program(before, inputs, entry.name, shape),
                                     run_program(after, inputs, entry.name, shape))
            compared += len(checks)
            bad = [f"{c.label}: {c.comparison.describe()}" for c in checks if not c.comparison.ok]
            assert not bad, f"{entry.name} (seed {seed}) computes something else: " + "; ".join(bad)
    assert compared, "no output was compared"
    left = [f.name for f in after.functions.values() if f.func_type is FunctionType.InCore]
    assert not left, f"InCore functions left: {left}"
    return after

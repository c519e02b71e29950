"""Running OptimizeOrchTensors in its tests: verified and round-tripped (conftest), and the same results before
and after on the reference machine of both bundled backends."""

from __future__ import annotations

import pypto.language as pl
from pypto import ir, passes
from pypto_core.testing import same_results

HEADER = "import pypto.language as pl\n\n"
BACKENDS = ("Ascend910B", "Ascend950")


def parse(src: str) -> ir.Program:
    return pl.parse(HEADER + src)


def optimize(src: str) -> tuple[ir.Program, ir.Program]:
    before = parse(src)
    after = passes.optimize_orch_tensors()(before)
    for backend in BACKENDS:
        same_results(before, after, backend=backend)
    return before, after


def assert_optimized(src: str, expected: str) -> ir.Program:
    _, after = optimize(src)
    ir.assert_structural_equal(after, parse(expected))
    return after


def assert_unchanged(src: str) -> None:
    before, after = optimize(src)
    ir.assert_structural_equal(after, before)

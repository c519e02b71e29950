"""The memory passes on what the real pipeline gives them: every bundled example compiled with the default
preset (through split_vector_kernel), then this plugin's passes in PyPTO's order, each verified and round-tripped,
and the result run by address on the reference machine against the compiled program, on both backends."""

from __future__ import annotations

from pathlib import Path

import pytest

import pypto.language as pl
from pypto import ir, passes
from pypto_core.analysis.walk import statements
from pypto_core.passes.instruments.assemble import pass_test_instruments
from pypto_core.testing import checked_pipeline, same_results

EXAMPLES = sorted((Path(__file__).resolve().parents[3] / "examples").glob("*.py"))
BACKENDS = ("Ascend910B", "Ascend950")
MEMORY_PASSES = ("init_mem_ref",)


def tiles_with_memrefs(program: ir.Program) -> int:
    count = 0
    for func in program.functions.values():
        for stmt in statements(func.body):
            if isinstance(stmt, ir.AssignStmt) and isinstance(stmt.var.type, ir.TileType) \
                    and stmt.var.type.memref is not None:
                count += 1
    return count


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_the_memory_passes_keep_every_example_computing_the_same(example, backend):
    compiled = checked_pipeline(backend).run(pl.parse(example.read_text()))
    program = compiled
    with passes.PassContext(pass_test_instruments(), backend=backend):
        for name in MEMORY_PASSES:
            program = getattr(passes, name)()(program)
    assert tiles_with_memrefs(program) > 0  # the tiles now live in on-chip bytes on the machine
    same_results(compiled, program)

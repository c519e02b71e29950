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
MEMORY_PASSES = ("canonicalize_io_order", "materialize_tensor_strides", "init_mem_ref", "materialize_semantic_aliases")


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


ACCUMULATE = '''
import pypto.language as pl


@pl.program
class Accumulate:
    @pl.function
    def k(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            acc = pl.load(a, [0, 0], [16, 64])
            for i in pl.range(4):
                x = pl.load(a, [i * 16, 0], [16, 64])
                acc = pl.add(acc, pl.exp(x))
            pl.store(acc, [0, 0], out)
        return out
'''


@pytest.mark.parametrize("planner", list(passes.MemoryPlanner), ids=lambda p: p.name)
@pytest.mark.parametrize("backend", BACKENDS)
def test_a_compiled_accumulator_loop_computes_in_its_carried_buffer(backend, planner):
    compiled = checked_pipeline(backend).run(pl.parse(ACCUMULATE))
    with passes.PassContext(pass_test_instruments(), backend=backend, memory_planner=planner):
        program = passes.materialize_semantic_aliases()(passes.init_mem_ref()(compiled))
    loops = [s for f in program.functions.values() for s in statements(f.body) if isinstance(s, ir.ForStmt)]
    assert loops
    for loop in loops:
        yielded = ir.flatten_to_stmts(loop.body)[-1].value[0]
        assert yielded.type.memref.base_ is loop.iter_args[0].type.memref.base_  # the add writes the carry
    same_results(compiled, program)

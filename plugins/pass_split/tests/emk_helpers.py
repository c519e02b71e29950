"""Shared steps of the ExpandMixedKernel tests: run the pass on a chosen backend under the default test
context (verification + round trip), and check by execution that the Group computes what the InCore
kernel computed."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from pypto import backend, ir, passes
from pypto_core.testing import same_results

from .helpers import parse

BACKENDS = ("Ascend910B", "Ascend950")


@contextmanager
def on_backend(name: str) -> Iterator[None]:
    backend.reset_for_testing()
    backend.set_backend_type(getattr(backend.BackendType, name))
    try:
        yield
    finally:
        backend.reset_for_testing()


def emk(src: str | ir.Program, backend_name: str = "Ascend950", run: bool = True, seed: int = 0) -> ir.Program:
    """parse -> expand_mixed_kernel on `backend_name`; outputs must not change (unless `run` is False)."""
    before = parse(src) if isinstance(src, str) else src
    with on_backend(backend_name):
        after = passes.expand_mixed_kernel()(before)
        if run:
            same_results(before, after, seed)
    return after


def lavs_emk(src: str, backend_name: str = "Ascend950") -> ir.Program:
    """parse -> lower_auto_vector_split -> expand_mixed_kernel, each checked by execution."""
    before = parse(src)
    with on_backend(backend_name):
        split = passes.lower_auto_vector_split()(before)
        same_results(before, split)
    return emk(split, backend_name)


def calls(func: ir.Function) -> list[ir.Call]:
    found: list[ir.Call] = []

    class Walk(ir.IRVisitor):
        def visit_call(self, call: ir.Call) -> None:
            if not isinstance(call.op, ir.GlobalVar):
                found.append(call)
            super().visit_call(call)

    Walk().visit_stmt(func.body)
    return found


def op_names(func: ir.Function) -> list[str]:
    """Every op the function calls, in walk order (nested bodies included)."""
    return [c.op.name for c in calls(func)]


def calls_of(func: ir.Function, op: str) -> list[ir.Call]:
    return [c for c in calls(func) if c.op.name == op]


USER_CHAIN = ("convert_to_ssa", "normalize_stmt_structure", "outline_incore_scopes", "convert_tensor_to_tile_ops",
              "flatten_tile_nd_to_2d", "infer_tile_memory_space", "lower_auto_vector_split", "expand_mixed_kernel")


def compile_user_program(src: str, backend_name: str = "Ascend950", run: bool = True) -> ir.Program:
    """A program written the way users write it (Opaque functions with CORE_GROUP scopes) through the tile
    lowering, LowerAutoVectorSplit and ExpandMixedKernel; the result must compute what the source does."""
    source = parse(src)
    with on_backend(backend_name):
        program = source
        for name in USER_CHAIN:
            program = getattr(passes, name)()(program)
        if run:
            same_results(source, program)
    return program


def ssa_emk(src: str, backend_name: str = "Ascend950", run: bool = True) -> ir.Program:
    """parse -> convert_to_ssa -> expand_mixed_kernel (the chain PyPTO's examples go through); outputs checked
    before and after unless `run` is False."""
    return emk(passes.convert_to_ssa()(parse(src)), backend_name, run)


def printed(program: ir.Program, name: str) -> str:
    """One function of the program as printed (format=False), to compare against expected IR lines."""
    return ir.python_print(program.get_function(name), format=False)


def has_lines(text: str, expected: str) -> bool:
    """Whether `expected` (lines, dedented and stripped of the blank first / last line) appears in `text`
    as consecutive lines, whatever the indentation of the block."""
    want = [line.strip() for line in expected.strip("\n").splitlines()]
    got = [line.strip() for line in text.splitlines()]
    return any(got[i:i + len(want)] == want for i in range(len(got) - len(want) + 1))


def run_text(text: str, entry: str = "k") -> dict:
    """Run a printed (possibly hand-edited) program on the reference machine."""
    import pypto.language as pl
    from pypto_core.interp import make_inputs, run_program

    program = pl.parse(text)
    return run_program(program, make_inputs(program.get_function(entry), seed=0), entry)

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

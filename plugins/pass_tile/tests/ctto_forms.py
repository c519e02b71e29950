"""Shared steps of the tests of ConvertTensorToTileOps' PyPTO forms (docs/passes/convert_tensor_to_tile_ops.md):
the PyPTO prefix up to the pass, the printed lines of a kernel, and the whole default pipeline on both backends."""

from __future__ import annotations

import pypto.language as pl
from pypto import ir, passes
from pypto_core.testing import same_results

from .helpers import BACKENDS, compiled

PREFIX = ("inline_functions", "unroll_loops", "ctrl_flow_transform", "convert_to_ssa", "simplify",
          "normalize_stmt_structure", "flatten_call_expr", "outline_hierarchy_scopes", "outline_incore_scopes",
          "outline_cluster_scopes")
HEADER = "import pypto.language as pl\n\n"


def prepared(src: str) -> ir.Program:
    """The program as the default pipeline hands it to ConvertTensorToTileOps."""
    program = pl.parse(HEADER + src)
    for name in PREFIX:
        program = getattr(passes, name)()(program)
    return program


def converted(src: str, run_backends: bool = True, run: bool = True) -> ir.Program:
    """The program after ConvertTensorToTileOps; it computes what the source does on the reference machine,
    and so does the whole default pipeline on both backends (`run=False`: structure only)."""
    before = prepared(src)
    after = passes.convert_tensor_to_tile_ops()(before)
    if not run:
        return after
    same_results(pl.parse(HEADER + src), after)
    if run_backends:
        for backend in BACKENDS:
            compiled(HEADER + src, backend)
    return after


def lines(program: ir.Program, name: str) -> list[str]:
    """The body lines of function `name` as PyPTO prints them (format=False), stripped."""
    func = program.get_function(name)
    assert func is not None, name
    return [line.strip() for line in ir.python_print(func, format=False).splitlines()[2:]]


def body(program: ir.Program, name: str = "main_incore_0") -> str:
    return "\n".join(lines(program, name))

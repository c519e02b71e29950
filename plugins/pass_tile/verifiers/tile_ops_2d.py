"""TileOps2D: every tile an InCore function computes is at most 2-D."""

from __future__ import annotations

from pypto_core.analysis.walk import kernels, op_calls
from pypto_core.ir.enums import FunctionType
from pypto_core.ir.types import TileType
from pypto_core.language.printer import python_print_type
from pypto_core.passes.verifier_registry import Diagnostic, error

RULE = "TileOps2D"


def verify_tile_ops_2d(program: object) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for func in kernels(program, (FunctionType.InCore,)):  # type: ignore[arg-type]
        for call in op_calls(func):
            t = call.type
            if isinstance(t, TileType) and len(t.shape) > 2:
                out.append(error(RULE, f"InCore function '{func.name}': {call.op.name} computes a "
                                       f"{len(t.shape)}-D tile {python_print_type(t)}; FlattenTileNdTo2D "
                                       f"makes tiles 2-D", call.span))
    return out

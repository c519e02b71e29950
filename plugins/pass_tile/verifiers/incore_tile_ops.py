"""IncoreTileOps: no tensor op is left in an InCore function (scalar accesses of GM tensors may stay)."""

from __future__ import annotations

from pypto_core.analysis.walk import kernels, op_calls
from pypto_core.ir.enums import FunctionType
from pypto_core.ops.registry import op_registry, opdef_of
from pypto_core.passes.verifier_registry import Diagnostic, error
from pypto_plugins.pass_tile.interfaces import TILE_FORM

RULE = "IncoreTileOps"


def verify_incore_tile_ops(program: object) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for func in kernels(program, (FunctionType.InCore,)):  # type: ignore[arg-type]
        for call in op_calls(func):
            opdef = opdef_of(call)
            if opdef is None or not opdef.is_tensor_op:
                continue
            form = op_registry().implementation(TILE_FORM.name, opdef.name)
            if form is not None and form.gm_access:
                continue
            out.append(error(RULE, f"InCore function '{func.name}': tensor op '{call.op.name}' is left; "
                                   f"ConvertTensorToTileOps lowers tensor ops to tile ops", call.span))
    return out

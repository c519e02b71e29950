"""IncoreTileOps: no tensor op that has a tile form is left in an InCore function (PyPTO's rule).

A call is flagged when its op is a tensor op *and* implements the `tile_form` interface (ConvertTensorToTileOps
would have lowered it). Asked of the registry, never a name list: a tensor op with no tile form
(`tensor.view`, ...) has no tile code to become and passes, and a tile form that declares `gm_access` (the
scalar reads / writes and `tensor.dim` of a GM tensor) may stay in tile code. A tensor op with no tile form
reaching the rest of the pipeline is ConvertTensorToTileOps' located error ("cannot be lowered to tile ops")
when the program goes through it.
"""

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
            if form is None or getattr(form, "gm_access", False):
                continue
            out.append(error(RULE, f"Tensor op '{call.op.name}' found in InCore function (should have been "
                                   f"converted): function '{func.name}'; ConvertTensorToTileOps lowers tensor "
                                   f"ops to tile ops", call.span))
    return out

"""Spmd and Group wrappers forward the outputs their kernel gained (ConvertTensorToTileOps, phase 2a of
docs/passes/convert_tensor_to_tile_ops.md).

A wrapper (a Spmd or Group function, which launches kernels) that calls an InCore function which gained Out parameters does not allocate them itself: it takes them as parameters of its
own (same names and types, direction Out), appended after its parameters, and passes them to its first call of that
kernel. Its callers then allocate them like any other new output (outputs.py). Its declared return types stay.
Further calls of gained-output kernels in the same wrapper allocate their own tensors, as any caller does.
"""

from __future__ import annotations

from collections.abc import Mapping

from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir.enums import FunctionType, ParamDirection
from pypto_core.ir.visitor import IRMutator
from pypto_plugins.pass_tile.tensor_to_tile.outputs import AddedOutputs

WRAPPER_TYPES = (FunctionType.Spmd, FunctionType.Group)


class _FirstCall(IRMutator):
    """The wrapper's first call of a kernel that gained outputs passes the wrapper's new parameters."""

    def __init__(self, added: Mapping[str, AddedOutputs]) -> None:
        self.added = added
        self.forwarded: AddedOutputs | None = None
        self.call: E.Call | None = None  # the call that passes them (call sites must not add to it again)

    def visit_call(self, call: E.Call) -> E.Expr:
        call = super().visit_call(call)  # type: ignore[assignment]
        if self.forwarded is not None or not isinstance(call.op, E.GlobalVar):
            return call
        outputs = self.added.get(call.op.name)
        if outputs is None:
            return call
        # Same names and types as the kernel's; the shape at the caller comes from the parameter's type.
        self.forwarded = AddedOutputs({i: E.Var(p.name_hint, p.type, p.span) for i, p in outputs.ordered()},
                                      shape_from_call=False)
        self.call = call.with_fields(args=(*call.args, *(p for _, p in self.forwarded.ordered())))
        return self.call


def forward_wrapper_outputs(func: F.Function, added: Mapping[str, AddedOutputs]
                            ) -> tuple[F.Function, AddedOutputs | None, E.Call | None]:
    """`func` (a wrapper) taking and forwarding the outputs its first gained-output kernel call needs; those
    outputs and the call passing them."""
    if func.func_type not in WRAPPER_TYPES or not added:
        return func, None, None
    rewriter = _FirstCall(added)
    body = rewriter.visit_stmt(func.body)
    if rewriter.forwarded is None:
        return func, None, None
    new = [p for _, p in rewriter.forwarded.ordered()]
    wrapped = func.with_fields(params=(*func.params, *new),
                               param_directions=(*func.param_directions, *(ParamDirection.Out for _ in new)),
                               body=body)
    return wrapped, rewriter.forwarded, rewriter.call  # type: ignore[return-value]

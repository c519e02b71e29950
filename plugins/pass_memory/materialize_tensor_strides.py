"""MaterializeTensorStrides (docs/passes/materialize_tensor_strides.md): every implicit tensor view (a TensorView
whose stride list is empty) gets the packed strides of its layout, and NZ on a tensor type is refused, so that
everything after sees explicit strides. Tiles and memory are not touched.

Every type reachable from the program is rewritten (parameters, return types, variables, carries and results,
call results, tuple elements); a variable whose type changes is replaced by a new one of the same name at every
use. Idempotent: explicit strides stay as they are.
"""

from __future__ import annotations

from typing import Any

from pypto_core.errors import UserError
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import scalar_ops
from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import TensorLayout
from pypto_core.ir.types import TensorType, TupleType, Type
from pypto_core.ir.visitor import IRMutator
from pypto_core.passes.pass_base import Pass

REQUIRED = ("SSAForm", "NormalizedStmtStructure", "SplitIncoreOrch", "IncoreTileOps", "TileOps2D",
            "TileMemoryInferred")


def _times(a: E.Expr, b: E.Expr) -> E.Expr:
    """a * b, folded for constants, without a factor of 1."""
    if isinstance(a, E.ConstInt) and isinstance(b, E.ConstInt):
        return E.ConstInt(a.value * b.value, DataType.INDEX)
    if isinstance(a, E.ConstInt) and a.value == 1:
        return b
    if isinstance(b, E.ConstInt) and b.value == 1:
        return a
    return scalar_ops.mul(a, b)


def packed_strides(shape: tuple[E.Expr, ...], layout: TensorLayout | None) -> tuple[E.Expr, ...]:
    """Row-major packed strides (ND); DN swaps the last two axes: stride[n-2] = 1, stride[n-1] = shape[n-2]."""
    n = len(shape)
    one = E.ConstInt(1, DataType.INDEX)
    strides: list[E.Expr] = [one] * n
    if layout is TensorLayout.DN and n >= 2:
        strides[n - 2], strides[n - 1] = one, shape[n - 2]
        if n >= 3:
            strides[n - 3] = _times(shape[n - 2], shape[n - 1])
        for k in range(n - 4, -1, -1):
            strides[k] = _times(strides[k + 1], shape[k + 1])
        return tuple(strides)
    for k in range(n - 2, -1, -1):
        strides[k] = _times(strides[k + 1], shape[k + 1])
    return tuple(strides)


def canonical_type(t: Type, span: Any) -> Type:
    if isinstance(t, TupleType):
        types = [canonical_type(e, span) for e in t.types]
        return t if all(a is b for a, b in zip(types, t.types)) else TupleType(types)
    if not isinstance(t, TensorType) or t.tensor_view is None:
        return t
    view = t.tensor_view
    if view.layout is TensorLayout.NZ:
        raise UserError("MaterializeTensorStrides: NZ layout is tile-only and not allowed on a tensor type. Annotate "
                        "the tensor as pl.ND or pl.DN, and produce NZ on a Tile instead.", span)
    if view.stride:
        return t
    return t.with_fields(tensor_view=view.with_fields(stride=packed_strides(t.shape, view.layout)))  # type: ignore


class _Materialize(IRMutator):
    def __init__(self) -> None:
        self.vars: dict[int, E.Var] = {}

    def visit_function(self, func: F.Function) -> F.Function:
        new = self.visit_node(func)
        returns = tuple(canonical_type(t, func.span) for t in new.return_types)
        if any(a is not b for a, b in zip(returns, new.return_types)):
            new = new.with_fields(return_types=returns)
        return new  # type: ignore[no-any-return]

    def visit_var(self, var: E.Var) -> E.Expr:
        hit = self.vars.get(id(var))
        if hit is not None:
            return hit
        new_type = canonical_type(var.type, var.span)
        if new_type is var.type:
            return var
        new = var.with_fields(type=new_type)
        self.vars[id(var)] = new  # type: ignore[assignment]
        return new  # type: ignore[return-value]

    def visit_iter_arg(self, var: E.IterArg) -> E.Expr:
        hit = self.vars.get(id(var))
        if hit is not None:
            return hit
        init = self.visit_expr(var.initValue)
        new_type = canonical_type(var.type, var.span)
        if init is var.initValue and new_type is var.type:
            return var
        new = var.with_fields(type=new_type, initValue=init)
        self.vars[id(var)] = new  # type: ignore[assignment]
        return new  # type: ignore[return-value]

    def visit_call(self, call: E.Call) -> E.Expr:
        new = self.visit_node(call)
        new_type = canonical_type(new.type, call.span)
        return new if new_type is new.type else new.with_fields(type=new_type)


class MaterializeTensorStrides(Pass):
    """Give every implicit tensor view its packed strides; refuse NZ on tensors."""

    name = "MaterializeTensorStrides"
    factory_name = "materialize_tensor_strides"
    required = REQUIRED
    produced = (*REQUIRED, "TensorViewCanonical")
    invalidated = ()
    description = ("Replace every empty TensorView stride by the packed strides of its layout (ND row-major, DN "
                   "with the last two axes swapped); NZ on a tensor type is an error.")

    def run(self, program: F.Program, ctx: Any) -> F.Program:
        return _Materialize().visit_program(program)

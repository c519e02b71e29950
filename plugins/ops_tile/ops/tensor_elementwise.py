"""Element-wise tensor ops (API.md 3.5): tensor.add/sub/... (two tensors), tensor.adds/... (tensor and
scalar), unary ops, tensor.cmp / cmps (kwarg `cmp_mode`), tensor.sel(mask, lhs, rhs),
tensor.sels(mask, src, scalar) and tensor.cast (kwargs `target_type`, `mode` int 0..6). The op
names and dtype rules are the tile family's (tile_elementwise); tensor forms need no tmp.

Dtypes (OPS.md `result:` lines): a tensor-scalar op promotes (tensor dtype, scalar dtype) like a
binary op (`pl.add(x_fp16, 1.0)` is FP32, API.md 3.1), except `tensor.subs` ("scalar does not
promote") and the bitwise ones, which keep the tensor's dtype. `tensor.div` takes INT16 / INT32 /
FP16 / FP32 operands; `tensor.cast` must change the dtype. Tensor-scalar, unary and cast results are
"fresh, valid<-lhs": a new packed tensor keeping only the operand's valid region.

Choice where API.md is silent: `tensor.add` takes two tensors; a scalar operand is `tensor.adds`
(the DSL builds that for `pl.add(t, 1.0)`), so the printer's `pl.tensor.adds` spelling always
re-parses to the op it came from.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import CastMode
from pypto_core.ir.expr import Expr
from pypto_core.ir.types import TensorType, TensorView, Type, dims_equal
from pypto_core.ops.build import (
    broadcast_shapes,
    promote_dtypes,
    require_dtype_in,
    require_scalar,
    require_tensor,
)
from pypto_core.ops.opdef import ArgSpec, KwargSpec, OpDef
from pypto_plugins.ops_tile.ops import tile_elementwise as tile_ew
from pypto_plugins.ops_tile.ops.tile_elementwise import integer_elements, is_bitwise

BINARY = tile_ew.BINARY
SCALAR = tile_ew.SCALAR
UNARY = (*tile_ew.UNARY, "recip", "rsqrt")
# OPS.md tensor.div: "both dtypes in {INT16,INT32,FP16,FP32}".
DIV_DTYPES = tile_ew.DIV_DTYPES
# OPS.md tensor.subs: "Tensor[lhs.shape; lhs.dtype] (scalar does not promote)".
_KEEPS_TENSOR_DTYPE = ("subs",)


def fresh(t: TensorType, dtype: DataType | None = None) -> TensorType:
    """OPS.md "fresh, valid<-lhs": the result is a new packed tensor; only the operand's valid region
    carries over, not its strides or layout (a transposed view's result is not strided)."""
    dtype = dtype or t.dtype
    view = t.tensor_view
    if view is None:
        return t if t.memref is None and dtype is t.dtype else TensorType(t.shape, dtype)
    valid = TensorView(valid_shape=view.valid_shape) if view.valid_shape else None
    return TensorType(t.shape, dtype, None, valid)


def binary_deducer(op: str):
    integers_only = is_bitwise(op)  # decided once per op rather than on every call
    allowed = DIV_DTYPES if op == "tensor.div" else None

    def deduce(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
        lhs = require_tensor(op, args[0], "lhs")
        if not isinstance(args[1].type, TensorType):
            raise TypeError(f"{op}: rhs must be a tensor, got {args[1].type}; use {op}s for a scalar")
        rhs = args[1].type
        if integers_only:
            integer_elements(op, lhs, "lhs")
            integer_elements(op, rhs, "rhs")
        if allowed is not None:
            require_dtype_in(op, lhs.dtype, allowed, "lhs")
            require_dtype_in(op, rhs.dtype, allowed, "rhs")
        if (lhs is rhs or (lhs.dtype is rhs.dtype and dims_equal(lhs.shape, rhs.shape))) \
                and lhs.memref is None and lhs.tensor_view is None:
            return lhs  # the common `pl.add(x, y)` of one type: nothing to broadcast or promote
        return TensorType(broadcast_shapes(lhs.shape, rhs.shape, op), promote_dtypes(lhs.dtype, rhs.dtype, op))

    return deduce


def scalar_deducer(op: str):
    integers_only = is_bitwise(op)
    promotes = not integers_only and op.rpartition(".")[2] not in _KEEPS_TENSOR_DTYPE

    def deduce(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
        lhs = require_tensor(op, args[0], "lhs")
        if integers_only:
            integer_elements(op, lhs, "lhs")
        scalar = require_scalar(op, args[1], "rhs")
        return fresh(lhs, promote_dtypes(lhs.dtype, scalar.dtype, op) if promotes else lhs.dtype)

    return deduce


def unary_deducer(op: str):
    integers_only = is_bitwise(op)

    def deduce(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
        src = require_tensor(op, args[0], "the operand")
        if integers_only:
            integer_elements(op, src, "the operand")
        return fresh(src)

    return deduce


def deduce_cmp(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    lhs, rhs = require_tensor("tensor.cmp", args[0], "lhs"), require_tensor("tensor.cmp", args[1], "rhs")
    promote_dtypes(lhs.dtype, rhs.dtype, "tensor.cmp")
    return TensorType(broadcast_shapes(lhs.shape, rhs.shape, "tensor.cmp"), DataType.BOOL)


def deduce_cmps(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    lhs = require_tensor("tensor.cmps", args[0], "lhs")
    require_scalar("tensor.cmps", args[1], "rhs")
    return TensorType(lhs.shape, DataType.BOOL)


def deduce_sel(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    require_tensor("tensor.sel", args[0], "the mask")
    lhs, rhs = require_tensor("tensor.sel", args[1], "lhs"), require_tensor("tensor.sel", args[2], "rhs")
    return TensorType(broadcast_shapes(lhs.shape, rhs.shape, "tensor.sel"), promote_dtypes(lhs.dtype, rhs.dtype,
                                                                                            "tensor.sel"))


def deduce_sels(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    require_tensor("tensor.sels", args[0], "the mask")
    src = require_tensor("tensor.sels", args[1], "src")
    require_scalar("tensor.sels", args[2], "the scalar")
    return TensorType(src.shape, src.dtype)


def deduce_cast(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    src = require_tensor("tensor.cast", args[0], "the operand")
    tile_ew.require_dtype_change("tensor.cast", src.dtype, kwargs["target_type"])
    return fresh(src, kwargs["target_type"])  # OPS.md tensor.cast: valid<-in


OPDEFS = [
    *[OpDef(f"tensor.{n}", binary_deducer(f"tensor.{n}"), args=(ArgSpec("lhs"), ArgSpec("rhs")),
            doc=f"Element-wise {n} of two tensors.") for n in BINARY],
    *[OpDef(f"tensor.{n}", scalar_deducer(f"tensor.{n}"), args=(ArgSpec("lhs"), ArgSpec("rhs")),
            doc=f"Element-wise {n[:-1]} of a tensor and a scalar.") for n in SCALAR],
    *[OpDef(f"tensor.{n}", unary_deducer(f"tensor.{n}"), args=(ArgSpec("tensor"),),
            doc=f"Element-wise {n}.") for n in UNARY],
    *[OpDef(f"tensor.{n}", deduce, args=(ArgSpec("lhs"), ArgSpec("rhs")),
            kwargs=(KwargSpec("cmp_mode", (int,), 0, choices=tuple(range(len(tile_ew.CMP_MODES))), recorded=True),),
            doc="Element-wise comparison -> a BOOL mask.") for n, deduce in (("cmp", deduce_cmp), ("cmps", deduce_cmps))],
    OpDef("tensor.sel", deduce_sel, args=(ArgSpec("mask"), ArgSpec("lhs"), ArgSpec("rhs")),
          doc="Pick lhs where the mask is set, else rhs."),
    OpDef("tensor.sels", deduce_sels, args=(ArgSpec("mask"), ArgSpec("src"), ArgSpec("scalar")),
          doc="Pick src where the mask is set, else the scalar."),
    OpDef("tensor.cast", deduce_cast, args=(ArgSpec("tensor"),),
          kwargs=(KwargSpec("target_type", (DataType,), required=True),
                  KwargSpec("mode", (int,), int(CastMode.round), choices=tuple(int(m) for m in CastMode), recorded=True)),
          doc="Element-wise dtype conversion with a rounding mode."),
]

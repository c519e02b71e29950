"""Element-wise tensor ops (docs/reference/ops.md, OPS.md "tensor: Elementwise"): tensor.add/sub/... (two tensors),
tensor.adds/... (tensor and scalar), unary ops, tensor.cmp (kwarg `cmp_type`) and tensor.cast (kwargs
`target_type`, `mode` int 0..6). The op names and dtype rules are the tile family's (tile_elementwise).

PyPTO's tensor set (OPS.md): `tensor.maximum` / `tensor.minimum` / `tensor.cmp` take a tensor OR a scalar
right-hand side (there is no tensor.maxs / mins / cmps); there is no tensor.relu, rem(s) or sel(s) (tile
ops only; the DSL builds `tensor.maximum(x, 0)` for `pl.relu` of a tensor and `tensor.fmod(s)` for
`pl.rem(s)`). `tensor.cmp` is not a packed mask: its result holds 0 / 1 in the promoted dtype.
`tensor.pow` and the unary ceil / floor / sigmoid / square / tanh are pypto extensions (no PyPTO op).

Dtypes (OPS.md `result:` lines): a tensor-scalar op promotes (tensor dtype, scalar dtype) like a
binary op (`pl.add(x_fp16, 1.0)` is FP32, docs/plugins.md, OpDef fields), except `tensor.subs` ("scalar does not
promote") and the bitwise ones, which keep the tensor's dtype. `tensor.div` takes INT16 / INT32 /
FP16 / FP32 operands; exp / sqrt / recip / rsqrt of an integer tensor are FP32; log takes FP16 / FP32;
`high_precision` (div, log, recip, rsqrt) needs floats where OPS.md says so; `tensor.cast` must change
the dtype. Tensor-scalar, unary and cast results are "fresh, valid<-lhs": a new packed tensor keeping
only the operand's valid region.

A choice of pypto's own, where PyPTO's documents are silent: `tensor.add` takes two tensors; a scalar operand is `tensor.adds`
(the DSL builds that for `pl.add(t, 1.0)`), so the printer's `pl.tensor.adds` spelling always
re-parses to the op it came from.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import CastMode
from pypto_core.ir.expr import Expr
from pypto_core.ir.types import ScalarType, TensorType, TensorView, Type, dims_equal
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

# PyPTO has rem only as a tile op (tensor.fmod is its tensor form).
BINARY = tuple(n for n in tile_ew.BINARY if n != "rem")
# maximum / minimum take a scalar rhs themselves; rem(s) is tile-only.
SCALAR = tuple(n for n in tile_ew.SCALAR if n not in ("maximums", "minimums", "rems"))
# relu is tile-only; log is its own (FP16 / FP32, high_precision).
UNARY = (*(n for n in tile_ew.UNARY if n != "relu"), "recip", "rsqrt")
SCALAR_RHS = ("maximum", "minimum")  # OPS.md: rhs Tensor|Scalar
# OPS.md: "Tensor[in.shape; in.dtype if float else FP32]".
_FLOAT_RESULT = ("exp", "sqrt", "recip", "rsqrt")
_HIGH_PRECISION = KwargSpec("high_precision", (bool,), False)
# OPS.md tensor.div: "both dtypes in {INT16,INT32,FP16,FP32}".
DIV_DTYPES = tile_ew.DIV_DTYPES
# OPS.md tensor.subs: "Tensor[lhs.shape; lhs.dtype] (scalar does not promote)".
_KEEPS_TENSOR_DTYPE = ("subs",)


_BINARY_DOCS = {
    "maximum": "Element-wise maximum of a tensor and a tensor (broadcasting) or a scalar.",
    "minimum": "Element-wise minimum of a tensor and a tensor (broadcasting) or a scalar.",
    "div": "Element-wise lhs / rhs (integers truncate toward zero; x / 0 is 0 for integers).",
}


def fresh(t: TensorType, dtype: DataType | None = None) -> TensorType:
    """OPS.md "fresh, valid<-lhs": the result is a new packed tensor; only the operand's valid region
    carries over, not its strides or layout (a transposed view's result is not strided)."""
    dtype = dtype or t.dtype
    view = t.tensor_view
    if view is None:
        return t if t.memref is None and dtype is t.dtype else TensorType(t.shape, dtype)
    valid = TensorView(valid_shape=view.valid_shape) if view.valid_shape else None
    return TensorType(t.shape, dtype, None, valid)


def _valid_of(t: TensorType) -> tuple:
    view = t.tensor_view
    return tuple(view.valid_shape) if view is not None and view.valid_shape else tuple(t.shape)


def _shared_valid(lhs: TensorType, rhs: TensorType) -> tuple | None:
    """OPS.md tensor binary ops: "fresh; valid kept when both same shape and provably same valid" -- the valid
    region both operands declare (structurally equal extents), when it is narrower than the shape."""
    if not dims_equal(lhs.shape, rhs.shape):
        return None
    valid = _valid_of(lhs)
    if not dims_equal(valid, _valid_of(rhs)) or dims_equal(valid, lhs.shape):
        return None
    return valid


def binary_deducer(op: str):
    integers_only = is_bitwise(op)  # decided once per op rather than on every call
    allowed = DIV_DTYPES if op == "tensor.div" else None
    scalar_rhs = op.rpartition(".")[2] in SCALAR_RHS

    def deduce(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
        lhs = require_tensor(op, args[0], "lhs")
        if scalar_rhs and isinstance(args[1].type, ScalarType):  # OPS.md: "as tensor-scalar"
            return fresh(lhs, promote_dtypes(lhs.dtype, args[1].type.dtype, op))
        if not isinstance(args[1].type, TensorType):
            hint = "a tensor or a scalar" if scalar_rhs else f"a tensor; use {op}s for a scalar"
            raise TypeError(f"{op}: rhs must be {hint}, got {args[1].type}")
        rhs = args[1].type
        if allowed is not None and kwargs.get("high_precision"):  # OPS.md: "high_precision only for float"
            if not (lhs.dtype.is_float() and rhs.dtype.is_float()):
                raise TypeError(f"{op}: high_precision=True needs float operands, got {lhs.dtype.name} and "
                                f"{rhs.dtype.name}")
        if integers_only:
            integer_elements(op, lhs, "lhs")
            integer_elements(op, rhs, "rhs")
        if allowed is not None:
            require_dtype_in(op, lhs.dtype, allowed, "lhs")
            require_dtype_in(op, rhs.dtype, allowed, "rhs")
        if (lhs is rhs or (lhs.dtype is rhs.dtype and dims_equal(lhs.shape, rhs.shape))) \
                and lhs.memref is None and lhs.tensor_view is None and rhs.tensor_view is None:
            return lhs  # the common `pl.add(x, y)` of one type: nothing to broadcast or promote
        shape = broadcast_shapes(lhs.shape, rhs.shape, op)
        dtype = promote_dtypes(lhs.dtype, rhs.dtype, op)
        valid = _shared_valid(lhs, rhs)
        return TensorType(shape, dtype, None, TensorView(valid_shape=valid)) if valid else TensorType(shape, dtype)

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
    name = op.rpartition(".")[2]
    float_result = name in _FLOAT_RESULT

    def deduce(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
        src = require_tensor(op, args[0], "the operand")
        if integers_only:
            integer_elements(op, src, "the operand")
        if name == "log":
            require_dtype_in(op, src.dtype, tile_ew.FLOAT_16_32, "the operand")
        if name == "recip" and kwargs.get("high_precision"):
            tile_ew.require_high_precision(op, src.dtype)
        if float_result and not src.dtype.is_float():
            return fresh(src, DataType.FP32)
        return fresh(src)

    return deduce


def deduce_cmp(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    """OPS.md tensor.cmp: 0 / 1 in promote(lhs, rhs) (not a packed mask); no valid propagation."""
    op = "tensor.cmp"
    lhs = require_tensor(op, args[0], "lhs")
    if isinstance(args[1].type, ScalarType):
        return TensorType(lhs.shape, promote_dtypes(lhs.dtype, args[1].type.dtype, op))
    rhs = require_tensor(op, args[1], "rhs")
    return TensorType(broadcast_shapes(lhs.shape, rhs.shape, op), promote_dtypes(lhs.dtype, rhs.dtype, op))


def deduce_cast(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    src = require_tensor("tensor.cast", args[0], "the operand")
    tile_ew.require_dtype_change("tensor.cast", src.dtype, kwargs["target_type"])
    return fresh(src, kwargs["target_type"])  # OPS.md tensor.cast: valid<-in


OPDEFS = [
    *[OpDef(f"tensor.{n}", binary_deducer(f"tensor.{n}"), args=(ArgSpec("lhs"), ArgSpec("rhs")),
            kwargs=(_HIGH_PRECISION,) if n == "div" else (), doc=_BINARY_DOCS.get(n, f"Element-wise {n} of two tensors."))
      for n in BINARY],
    *[OpDef(f"tensor.{n}", scalar_deducer(f"tensor.{n}"), args=(ArgSpec("lhs"), ArgSpec("rhs")),
            doc=f"Element-wise {n[:-1]} of a tensor and a scalar.") for n in SCALAR],
    *[OpDef(f"tensor.{n}", unary_deducer(f"tensor.{n}"), args=(ArgSpec("input"),),
            kwargs=(_HIGH_PRECISION,) if n in ("recip", "rsqrt") else (), doc=f"Element-wise {n}.") for n in UNARY],
    OpDef("tensor.log", unary_deducer("tensor.log"), args=(ArgSpec("input"),), kwargs=(_HIGH_PRECISION,),
          doc="Element-wise natural logarithm of an FP16 / FP32 tensor."),
    OpDef("tensor.cmp", deduce_cmp, args=(ArgSpec("lhs"), ArgSpec("rhs")), kwargs=(tile_ew.CMP_TYPE,),
          doc="Element-wise comparison with a tensor or a scalar (cmp_type 0..5 = eq, ne, lt, gt, ge, le) -> 1 where "
              "it holds, else 0, in the promoted dtype."),
    OpDef("tensor.cast", deduce_cast, args=(ArgSpec("input"),),
          kwargs=(KwargSpec("target_type", (DataType,), required=True),
                  KwargSpec("mode", (int,), int(CastMode.round), choices=tuple(int(m) for m in CastMode), recorded=True)),
          doc="Element-wise dtype conversion with a rounding mode."),
]

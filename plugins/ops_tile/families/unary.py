"""Element-wise unary ops: exp, neg, abs, sqrt, relu, floor, ceil, sin, cos, tanh, sigmoid, square, not,
log, recip and rsqrt, on tiles (`tile.exp(x)`) and tensors (`tensor.exp(input)`), and the top-level
`pl.exp` & co. that dispatch on the operand.

Kwargs: `high_precision` on tile.log / recip and tensor.log / recip / rsqrt (for FP16 / FP32 operands);
`tile.rsqrt(x[, tmp])` takes PyPTO's scratch tile instead, which must have exactly the operand's shape and
dtype (so its deducer decides it and it carries no lane declaration). `not` prints as `pl.tile.not_`
(docs/dsl.md, the printed form).

Dtypes: a tile result keeps the operand's dtype and whole view; log takes FP16 / FP32 operands; exp / sqrt /
recip / rsqrt of an integer tensor are FP32 (the tile form casts the tile first). A tensor result is fresh,
keeping only the operand's valid region. relu is a tile op only: `pl.relu` of a tensor (and pypto's
`pl.tensor.relu`) builds `tensor.maximum(x, 0)`. ceil, floor, sigmoid, square and tanh of tensors are pypto
extensions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pypto_core.ir.dtypes import DataType
from pypto_core.ir.expr import Call, Expr
from pypto_core.ir.span import Span
from pypto_core.ir.types import TensorType, TileType, Type, dims_equal
from pypto_core.ops.build import (
    dsl_entry,
    operand_kind,
    reject_tensor_tile_mix,
    require_dtype_in,
    require_tensor,
    require_tile,
    shape_text,
)
from pypto_core.ops.family import OpFamily
from pypto_core.ops.opdef import ArgSpec, KwargSpec, OpDef
from pypto_core.ops.registry import create_op_call
from pypto_core.ops.tile_form import TileForm, TileLowering
from pypto_plugins.ops_tile.common import names
from pypto_plugins.ops_tile.common.dsl import (
    Builder,
    dispatch_between,
    dsl_name,
    dsl_named,
    precision,
    registered,
    scalar_for,
)
from pypto_plugins.ops_tile.common.elementwise import (
    FLOAT_16_32,
    Deducer,
    integer_elements,
    require_high_precision,
)
from pypto_plugins.ops_tile.common.shapes import fresh
from pypto_plugins.ops_tile.common.tile_forms import as_dtype, promoting, same, scratch
from pypto_plugins.ops_tile.common.views import result_tile, row_major, vec_op

family = OpFamily("unary", semantics="pypto_plugins.ops_tile.semantics.unary")

_FLOAT_RESULT = ("exp", "sqrt", "recip", "rsqrt")  # of an integer tensor: FP32


# -- type rules ---------------------------------------------------------------------------------------------
def tile_unary_deducer(op: str) -> Deducer:
    integers_only = names.is_bitwise(op)

    def deduce(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
        src = require_tile(op, args[0], "the operand")
        if integers_only:
            integer_elements(op, src, "the operand")
        return result_tile(src.shape, src.dtype, src)

    return deduce


def deduce_tile_log(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    src = require_tile("tile.log", args[0], "the operand")
    require_dtype_in("tile.log", src.dtype, FLOAT_16_32, "the operand")
    return result_tile(src.shape, src.dtype, src)


def deduce_tile_recip(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    src = require_tile("tile.recip", args[0], "the operand")
    if kwargs.get("high_precision"):
        require_high_precision("tile.recip", src.dtype)
    return result_tile(src.shape, src.dtype, src)


def deduce_tile_rsqrt(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    src = require_tile("tile.rsqrt", args[0], "the operand")
    if len(args) > 1:
        tmp = require_tile("tile.rsqrt", args[1], "tmp")
        if not dims_equal(tmp.shape, src.shape) or tmp.dtype is not src.dtype:
            raise TypeError(f"tile.rsqrt: tmp must have the operand's shape and dtype "
                            f"({shape_text(src.shape)} {src.dtype.name}), got {shape_text(tmp.shape)} "
                            f"{tmp.dtype.name}")
    return result_tile(src.shape, src.dtype, src)


def tensor_unary_deducer(op: str) -> Deducer:
    integers_only = names.is_bitwise(op)
    name = op.rpartition(".")[2]
    float_result = name in _FLOAT_RESULT

    def deduce(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
        src = require_tensor(op, args[0], "the operand")
        if integers_only:
            integer_elements(op, src, "the operand")
        if name == "log":
            require_dtype_in(op, src.dtype, FLOAT_16_32, "the operand")
        if name == "recip" and kwargs.get("high_precision"):
            require_high_precision(op, src.dtype)
        if float_result and not src.dtype.is_float():
            return fresh(src, DataType.FP32)
        return fresh(src)

    return deduce


# -- ops (their builders derived from the OpDef, except recip / log, which take high_precision positionally) --
_HIGH_PRECISION = KwargSpec("high_precision", (bool,), False)

for _n in names.UNARY:
    family.op(vec_op(_n, tile_unary_deducer(f"tile.{_n}"), (ArgSpec("tile"),), f"Element-wise {_n}."),
              dsl=f"tile.{dsl_name(_n)}")
family.op(vec_op("recip", deduce_tile_recip, (ArgSpec("tile"),), "Element-wise 1 / x.", kwargs=(_HIGH_PRECISION,)))
family.op(vec_op("rsqrt", deduce_tile_rsqrt, (ArgSpec("tile"), ArgSpec("tmp", optional=True)),
                 "Element-wise 1 / sqrt(x).", vec=(0, 1)), dsl="tile.rsqrt")
family.op(vec_op("log", deduce_tile_log, (ArgSpec("tile"),), "Element-wise natural logarithm of an FP16 / FP32 tile.",
                 kwargs=(_HIGH_PRECISION,)))
for _n in names.TENSOR.UNARY:
    _precise = _n in ("recip", "rsqrt")
    family.op(OpDef(f"tensor.{_n}", tensor_unary_deducer(f"tensor.{_n}"), args=(ArgSpec("input"),),
                    kwargs=(_HIGH_PRECISION,) if _precise else (), doc=f"Element-wise {_n}."),
              dsl=None if _precise else f"tensor.{dsl_name(_n)}")
family.op(OpDef("tensor.log", tensor_unary_deducer("tensor.log"), args=(ArgSpec("input"),), kwargs=(_HIGH_PRECISION,),
                doc="Element-wise natural logarithm of an FP16 / FP32 tensor."))


# -- tile forms ---------------------------------------------------------------------------------------------
def lower_tensor_rsqrt(ctx: TileLowering, call: Call) -> Expr:
    """tensor.rsqrt(high_precision=True) is tile.rsqrt(x, tmp) with a scratch of x's shape (PyPTO's tile rsqrt
    takes the scratch instead of the flag); an integer operand is cast to the FP32 result first."""
    want = call.type.dtype if isinstance(call.type, TensorType) else None
    src = as_dtype(ctx, ctx.tile(call.args[0]), want)
    if not call.kwargs.get("high_precision"):
        return ctx.call("tile.rsqrt", [src])
    t = src.type
    assert isinstance(t, TileType)
    return ctx.call("tile.rsqrt", [src, scratch(ctx, t.shape, t.dtype, "rsqrt_tmp")])


for _n in (*names.TENSOR.UNARY, "log"):
    if _n == "rsqrt":
        family.implement("tile_form", "tensor.rsqrt", TileForm(lower=lower_tensor_rsqrt))
    elif _n in _FLOAT_RESULT:  # exp / sqrt / recip: an integer operand is cast to the FP32 result first
        family.implement("tile_form", f"tensor.{_n}", promoting(f"tile.{_n}"))
    else:  # the same op on the tile; log's high_precision passes on with the kwargs
        family.implement("tile_form", f"tensor.{_n}", same(f"tile.{_n}"))


# -- DSL ----------------------------------------------------------------------------------------------------
@dsl_entry
def recip(tile: Expr, high_precision: Any = False, span: Span | None = None) -> Call:
    return create_op_call("tile.recip", [tile], precision(high_precision), span=span)


@dsl_entry
def log(tile: Expr, high_precision: Any = False, span: Span | None = None) -> Call:
    return create_op_call("tile.log", [tile], precision(high_precision), span=span)


def tensor_precise_unary(name: str) -> Builder:
    """`pl.tensor.log / recip / rsqrt(input, high_precision=False)`."""

    def build(input: Expr, high_precision: Any = False, span: Span | None = None) -> Call:
        return create_op_call(f"tensor.{name}", [input], precision(high_precision), span=span)

    build.__name__ = name
    return dsl_entry(build)


@dsl_named("relu")
def tensor_relu(tensor: Expr, span: Span | None = None) -> Call:
    """PyPTO has relu only as a tile op: a tensor's is tensor.maximum(x, 0)."""
    return create_op_call("tensor.maximum", [tensor, scalar_for(0, tensor, span)], span=span)


@dsl_named("rsqrt")
def unified_rsqrt(input: Any, high_precision: Any = False, span: Span | None = None) -> Expr:
    """`pl.rsqrt(input, high_precision=False)`. A tile's rsqrt has no such kwarg (PyPTO's tile.rsqrt takes an
    optional tmp instead): on a tile a Tile second operand is that tmp and the flag is dropped."""
    reject_tensor_tile_mix(input, high_precision)
    kind = operand_kind(input)
    if kind == "Tile":
        tmp = high_precision if operand_kind(high_precision) == "Tile" else None
        return _TILE_RSQRT(input, tmp, span=span)
    if kind == "Tensor":
        return _TENSOR_RSQRT(input, high_precision, span=span)
    raise TypeError(f"expects a tensor or a tile as its first operand, got {kind}")


family.dsl_function("tile.recip", recip)
family.dsl_function("tile.log", log)
for _n in ("log", "recip", "rsqrt"):
    family.dsl_function(f"tensor.{_n}", tensor_precise_unary(_n))
family.dsl_function("tensor.relu", tensor_relu)
family.dsl_function("rsqrt", unified_rsqrt)

_TILE_RSQRT, _TENSOR_RSQRT = registered("tile.rsqrt"), registered("tensor.rsqrt")
for _n in (*map(dsl_name, names.TENSOR.UNARY), "relu", "log"):
    if _n != "rsqrt":
        family.dsl_function(_n, dispatch_between(_n, registered(f"tile.{_n}"), registered(f"tensor.{_n}")))


# The row-major tiles the backend's instruction needs (ResolveBackendOpLayouts, docs/plugins.md, op interfaces).
for _row_major_op in ("abs", "exp", "sqrt", "not", "relu", "log", "recip", "rsqrt"):
    family.implement("row_major_layout", f"tile.{_row_major_op}", row_major())


# Memory planning facts (docs/memory_planning.md): which operands a result's buffer must not share.
family.set_traits("tile.recip", "tile.rsqrt", output_must_not_alias="all")

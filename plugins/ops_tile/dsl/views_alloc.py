"""DSL spellings (OPS.md `py:` lines) of the views_alloc ops (issue 14).

A builder takes the IR operands positionally and the kwargs by name, so the printed text re-parses to the
same call (docs/dsl.md, the printed form). `tile.alloc`'s memory space is an operand: `pl.Mem.Vec` becomes its int value.
"""

from __future__ import annotations

from typing import Any

from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import MemorySpace, PadValue, TensorLayout
from pypto_core.ir.expr import Call, ConstInt, Expr, MakeTuple
from pypto_core.ir.span import Span
from pypto_core.ops.build import (
    retype_literal,
    to_bool,
    to_dtype,
    to_expr,
    to_int,
    to_tuple,
)
from pypto_core.ops.registry import create_op_call
from pypto_plugins.ops_tile.dsl.common import Builder, dsl_entry, set_if
from pypto_plugins.ops_tile.dsl.tensor import TENSOR as BASE_TENSOR
from pypto_plugins.ops_tile.dsl.tile_generators import TILE as GENERATORS
from pypto_plugins.ops_tile.dsl.tile_generators import random_words
from pypto_plugins.ops_tile.dsl.tile_views import TILE as TILE_VIEWS
from pypto_plugins.ops_tile.dsl.unified import dispatch_between


def _space(value: Any, span: Span | None) -> Expr:
    if isinstance(value, MemorySpace):
        return ConstInt(value.value, DataType.INDEX, span)
    return to_expr(to_int(value, "memory_space"), span)


def _pad(value: Any) -> PadValue:
    if isinstance(value, str):
        return PadValue[value]
    if not isinstance(value, PadValue):
        raise TypeError(f"pad_value must be a pl.PadValue (zero, max, min), got {value!r}")
    return value


# -- tile ---------------------------------------------------------------------------------------------------
@dsl_entry
def tile_alloc(memory_space: Any, size: Any, span: Span | None = None, *, pinned: Any = False) -> Call:
    kwargs: dict[str, Any] = {}
    set_if(kwargs, "pinned", to_bool(pinned, "pinned"), False)
    return create_op_call("tile.alloc", [_space(memory_space, span), to_expr(size, span)], kwargs, span=span)


@dsl_entry
def tri(diagonal: Any, shape: Any, valid_shape: Any = None, dtype: DataType = DataType.INT32, upper: Any = False,
        span: Span | None = None) -> Call:
    args = [to_expr(diagonal, span), to_tuple(shape, span)]
    if valid_shape is not None:
        args.append(to_tuple(valid_shape, span))
    return create_op_call("tile.tri", args, {"dtype": to_dtype(dtype), "upper": to_bool(upper, "upper")}, span=span)


def _pair(op: str) -> Builder:
    @dsl_entry
    def build(src0: Expr, src1: Expr, span: Span | None = None) -> Call:
        return create_op_call(op, [src0, src1], span=span)

    build.__name__ = op.split(".")[1]
    return build


def _fillpad(op: str) -> Builder:
    @dsl_entry
    def build(x: Expr, pad_value: Any = PadValue.zero, span: Span | None = None) -> Call:
        return create_op_call(op, [x], {"pad_value": _pad(pad_value)}, span=span)

    build.__name__ = op.split(".")[1]
    return build


def _fillpad_expand(op: str) -> Builder:
    @dsl_entry
    def build(x: Expr, shape: Any, pad_value: Any = PadValue.zero, span: Span | None = None) -> Call:
        return create_op_call(op, [x, to_tuple(shape, span)], {"pad_value": _pad(pad_value)}, span=span)

    build.__name__ = op.split(".")[1]
    return build


# -- tensor -------------------------------------------------------------------------------------------------
@dsl_entry
def tensor_alloc(memory_space: Any, size: Any, span: Span | None = None) -> Call:
    return create_op_call("tensor.alloc", [_space(memory_space, span), to_expr(size, span)], span=span)


@dsl_entry
def create_l1(shape: Any, dtype: DataType, transpose: Any = False, span: Span | None = None) -> Call:
    kwargs: dict[str, Any] = {"dtype": to_dtype(dtype)}
    set_if(kwargs, "transpose", to_bool(transpose, "transpose"), False)
    return create_op_call("tensor.create_l1", [to_tuple(shape, span)], kwargs, span=span)


@dsl_entry
def tensor_ci(start: Any, shape: Any, dtype: DataType = DataType.INT32, descending: Any = False,
              span: Span | None = None) -> Call:
    dtype = to_dtype(dtype)
    kwargs: dict[str, Any] = {"dtype": dtype}
    set_if(kwargs, "descending", to_bool(descending, "descending"), False)
    return create_op_call("tensor.ci", [retype_literal(to_expr(start, span), dtype), to_tuple(shape, span)], kwargs,
                          span=span)


@dsl_entry
def tensor_random(key0: Any, key1: Any, counter0: Any, counter1: Any, counter2: Any, counter3: Any, shape: Any,
                  dtype: DataType = DataType.UINT32, rounds: Any = 10, span: Span | None = None) -> Call:
    args = [*random_words((key0, key1, counter0, counter1, counter2, counter3), span), to_tuple(shape, span)]
    kwargs: dict[str, Any] = {"dtype": to_dtype(dtype)}
    set_if(kwargs, "rounds", to_int(rounds, "rounds"), 10)
    return create_op_call("tensor.random", args, kwargs, span=span)


@dsl_entry
def tensor_set_validshape(tensor: Expr, valid_rows: Any, valid_cols: Any, span: Span | None = None) -> Call:
    return create_op_call("tensor.set_validshape", [tensor, to_expr(valid_rows, span), to_expr(valid_cols, span)],
                          span=span)


@dsl_entry
def tensor_reshape(tensor: Expr, shape: Any, valid_shape: Any = None, span: Span | None = None) -> Call:
    """tensor.reshape; the optional valid_shape is its 3-arg IR form (OPS.md), so that printed text re-parses."""
    args = [tensor, to_tuple(shape, span)] + ([to_tuple(valid_shape, span)] if valid_shape is not None else [])
    return create_op_call("tensor.reshape", args, span=span)


@dsl_entry
def view(tensor: Expr, shape: Any = None, valid_shape: Any = None, span: Span | None = None, *,
         layout: TensorLayout | None = None) -> Call:
    args = [tensor]
    if shape is not None or valid_shape is not None:
        args.append(to_tuple(shape, span) if shape is not None else MakeTuple([], span))
    if valid_shape is not None:
        args.append(to_tuple(valid_shape, span))
    kwargs: dict[str, Any] = {}
    set_if(kwargs, "layout", layout)
    return create_op_call("tensor.view", args, kwargs, span=span)


# -- top-level pl.X --------------------------------------------------------------------------------------------
TILE: dict[str, Any] = {
    "alloc": tile_alloc, "tri": tri, "concat": _pair("tile.concat"), "fillpad": _fillpad("tile.fillpad"),
    "fillpad_inplace": _fillpad("tile.fillpad_inplace"), "fillpad_expand": _fillpad_expand("tile.fillpad_expand"),
}
TENSOR: dict[str, Any] = {
    "alloc": tensor_alloc, "create_l1": create_l1, "ci": tensor_ci, "arange": tensor_ci, "random": tensor_random,
    "concat": _pair("tensor.concat"), "fillpad": _fillpad("tensor.fillpad"),
    "fillpad_expand": _fillpad_expand("tensor.fillpad_expand"), "set_validshape": tensor_set_validshape,
    "view": view, "create_tensor": BASE_TENSOR["create"], "reshape": tensor_reshape,
}
SYSTEM: dict[str, Any] = {}
UNIFIED: dict[str, Any] = {  # top-level pl.X spellings; they override the base dispatchers of the same name
    "tri": tri, "create_l1": create_l1, "random": tensor_random, "arange": tensor_ci,
    "create_tile": GENERATORS["create"],
    **{n: dispatch_between(n, TILE[n], TENSOR[n]) for n in ("concat", "fillpad", "fillpad_expand")},
    "set_validshape": dispatch_between("set_validshape", TILE_VIEWS["set_validshape"], tensor_set_validshape),
}

"""DSL / builders of tile.slice, reshape, reinterpret_view, transpose, transpose_view, set_validshape,
assemble (docs/reference/ops.md). reinterpret_view's shape is a keyword, as the printer writes it (docs/dsl.md, the printed form)."""

from __future__ import annotations

from typing import Any

from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import AtomicType, PadValue
from pypto_core.ir.expr import Call, Expr, MakeTuple
from pypto_core.ir.span import Span
from pypto_core.ops.build import to_dtype, to_enum_int, to_expr, to_tuple
from pypto_core.ops.registry import create_op_call
from pypto_plugins.ops_tile.dsl.common import dsl_entry, set_if


def slice_args(x: Expr, shape: Any, offset: Any, valid_shape: Any, drop_dims: Any, span: Span | None) -> list[Expr]:
    """Trailing optional operands only when given; `[]` stands for a skipped valid_shape (docs/reference/ops.md)."""
    args = [x, to_tuple(shape, span), to_tuple(offset, span)]
    if valid_shape is not None or drop_dims is not None:
        args.append(to_tuple(valid_shape, span) if valid_shape is not None else MakeTuple([], span))
    if drop_dims is not None:
        args.append(to_tuple(drop_dims, span))
    return args


@dsl_entry
def slice(tile: Expr, shape: Any, offset: Any, valid_shape: Any = None, drop_dims: Any = None,
          pad_value: PadValue | None = None, span: Span | None = None) -> Call:
    kwargs: dict[str, Any] = {}
    set_if(kwargs, "pad_value", pad_value)
    return create_op_call("tile.slice", slice_args(tile, shape, offset, valid_shape, drop_dims, span), kwargs,
                          span=span)


@dsl_entry
def reshape(tile: Expr, shape: Any, span: Span | None = None) -> Call:
    return create_op_call("tile.reshape", [tile, to_tuple(shape, span)], span=span)


@dsl_entry
def reinterpret_view(tile: Expr, dtype: DataType, span: Span | None = None, *, shape: Any = None) -> Call:
    args = [tile] if shape is None else [tile, to_tuple(shape, span)]
    return create_op_call("tile.reinterpret_view", args, {"dtype": to_dtype(dtype)}, span=span)


@dsl_entry
def transpose(tile: Expr, axis1: Any, axis2: Any, tmp: Expr | None = None, span: Span | None = None) -> Call:
    args = [tile, to_expr(axis1, span), to_expr(axis2, span)]
    if tmp is not None:
        args.append(tmp)
    return create_op_call("tile.transpose", args, span=span)


@dsl_entry
def transpose_view(tile: Expr, span: Span | None = None) -> Call:
    return create_op_call("tile.transpose_view", [tile], span=span)


@dsl_entry
def set_validshape(tile: Expr, valid_rows: Any, valid_cols: Any, span: Span | None = None) -> Call:
    return create_op_call("tile.set_validshape", [tile, to_expr(valid_rows, span), to_expr(valid_cols, span)],
                          span=span)


@dsl_entry
def assemble(target: Expr, source: Expr, offset: Any, span: Span | None = None, *,
             atomic: Any = AtomicType.None_) -> Call:
    kwargs: dict[str, Any] = {}
    set_if(kwargs, "atomic", to_enum_int(atomic, AtomicType, "atomic"), 0)
    return create_op_call("tile.assemble", [target, source, to_tuple(offset, span)], kwargs, span=span)


TILE = {"slice": slice, "reshape": reshape, "reinterpret_view": reinterpret_view, "transpose": transpose,
        "transpose_view": transpose_view, "set_validshape": set_validshape, "assemble": assemble}

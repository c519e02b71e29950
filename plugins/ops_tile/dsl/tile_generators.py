"""DSL / builders of tile.full, create, ci, random (docs/reference/ops.md)."""

from __future__ import annotations

from typing import Any

from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import MemorySpace
from pypto_core.ir.expr import Call
from pypto_core.ir.span import Span
from pypto_core.ops.build import retype_literal, to_bool, to_dtype, to_expr, to_int, to_tuple
from pypto_core.ops.registry import create_op_call
from pypto_plugins.ops_tile.dsl.common import dsl_entry, fill_value


@dsl_entry
def full(shape: Any, dtype: DataType, value: Any, span: Span | None = None) -> Call:
    dtype = to_dtype(dtype)
    return create_op_call("tile.full", [to_tuple(shape, span), fill_value(value, dtype, span)], {"dtype": dtype},
                          span=span)


@dsl_entry
def create(shape: Any, dtype: DataType, target_memory: MemorySpace | None = MemorySpace.Vec, transpose: Any = None,
           span: Span | None = None, *, flat_layout: Any = None) -> Call:
    """An unwritten target_memory is Vec; `target_memory=None` defers the choice (printed so)."""
    kwargs: dict[str, Any] = {"dtype": to_dtype(dtype)}
    if target_memory is not None:
        kwargs["target_memory"] = target_memory
    if transpose is not None:
        kwargs["transpose"] = to_bool(transpose, "transpose")
    if flat_layout is not None:
        kwargs["flat_layout"] = to_bool(flat_layout, "flat_layout")
    return create_op_call("tile.create", [to_tuple(shape, span)], kwargs, span=span)


@dsl_entry
def ci(start: Any, shape: Any, dtype: DataType = DataType.INT32, descending: Any = False,
       span: Span | None = None) -> Call:
    dtype = to_dtype(dtype)
    kwargs = {"dtype": dtype, "descending": to_bool(descending, "descending")}
    return create_op_call("tile.ci", [retype_literal(to_expr(start, span), dtype), to_tuple(shape, span)], kwargs,
                          span=span)


def random_words(words: Any, span: Span | None) -> list[Any]:
    """The keys and counters (INT32 scalars; a literal stays an INDEX constant, printed bare)."""
    return [to_expr(v, span) for v in words]


@dsl_entry
def random(key0: Any, key1: Any, counter0: Any, counter1: Any, counter2: Any, counter3: Any, shape: Any,
           valid_shape: Any = None, dtype: DataType = DataType.UINT32, rounds: Any = 10,
           span: Span | None = None) -> Call:
    args = random_words((key0, key1, counter0, counter1, counter2, counter3), span)
    args.append(to_tuple(shape, span))
    if valid_shape is not None:
        args.append(to_tuple(valid_shape, span))
    kwargs = {"dtype": to_dtype(dtype), "rounds": to_int(rounds, "rounds")}
    return create_op_call("tile.random", args, kwargs, span=span)


# OPS.md spellings: pl.tile.create / create_tile, pl.tile.arange / ci.
TILE = {"full": full, "create": create, "create_tile": create, "ci": ci, "arange": ci, "random": random}

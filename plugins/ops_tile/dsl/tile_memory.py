"""DSL / builders of tile.load, store, move, extract, read, write (docs/reference/ops.md).

`pl.tile.load` without target_memory loads into Vec (PyPTO's default); `target_memory=None` is the
deferred form the printer writes for a load whose space InferTileMemorySpace has not chosen yet."""

from __future__ import annotations

from typing import Any

from pypto_core.ir.enums import AtomicType, CachePolicy, MemorySpace, TileLayout
from pypto_core.ir.expr import Call, Expr
from pypto_core.ir.span import Span
from pypto_core.ops.build import to_bool, to_enum_int, to_expr, to_tuple
from pypto_core.ops.registry import create_op_call
from pypto_plugins.ops_tile.dsl.common import dsl_entry, scalar_for, set_if


@dsl_entry
def load(tensor: Expr, offsets: Any, shapes: Any, valid_shape: Any = None,
         target_memory: MemorySpace | None = MemorySpace.Vec, clamp: Any = False, span: Span | None = None, *,
         cache: Any = None) -> Call:
    """`tile.load` always carries four operands: valid_shape defaults to shapes (docs/reference/ops.md).

    An unwritten target_memory is Vec; `target_memory=None` defers the choice to InferTileMemorySpace."""
    shape_t = to_tuple(shapes, span)
    valid_t = shape_t if valid_shape is None else to_tuple(valid_shape, span)
    kwargs: dict[str, Any] = {} if target_memory is None else {"target_memory": target_memory}
    if to_bool(clamp, "clamp"):
        kwargs["clamp"] = True
    if cache is not None:  # a pl.set_cache_policy, as ConvertTensorToTileOps writes it (docs/passes/outline_incore_scopes.md)
        kwargs["cache"] = to_enum_int(cache, CachePolicy, "cache")
    return create_op_call("tile.load", [tensor, to_tuple(offsets, span), shape_t, valid_t], kwargs, span=span)


@dsl_entry
def store(tile: Expr, offsets: Any, output_tensor: Expr, shapes: Any = None, span: Span | None = None, *,
          atomic: Any = AtomicType.None_) -> Call:
    args = [tile, to_tuple(offsets, span), output_tensor]
    if shapes is not None:
        args.append(to_tuple(shapes, span))
    kwargs: dict[str, Any] = {}
    set_if(kwargs, "atomic", to_enum_int(atomic, AtomicType, "atomic"), 0)
    return create_op_call("tile.store", args, kwargs, span=span)


@dsl_entry
def move(tile: Expr, target_memory: MemorySpace, blayout: TileLayout | None = None,
         slayout: TileLayout | None = None, span: Span | None = None) -> Call:
    kwargs: dict[str, Any] = {"target_memory": target_memory}
    set_if(kwargs, "blayout", blayout)
    set_if(kwargs, "slayout", slayout)
    return create_op_call("tile.move", [tile], kwargs, span=span)


@dsl_entry
def extract(src: Expr, index_row: Any, index_col: Any, shape: Any, span: Span | None = None, *,
            target_memory: MemorySpace) -> Call:
    args = [src, to_expr(index_row, span), to_expr(index_col, span), to_tuple(shape, span)]
    return create_op_call("tile.extract", args, {"target_memory": target_memory}, span=span)


@dsl_entry
def read(tile: Expr, indices: Any, span: Span | None = None) -> Call:
    return create_op_call("tile.read", [tile, to_tuple(indices, span)], span=span)


@dsl_entry
def write(tile: Expr, indices: Any, value: Any, span: Span | None = None) -> Call:
    return create_op_call("tile.write", [tile, to_tuple(indices, span), scalar_for(value, tile, span)], span=span)


TILE = {"load": load, "store": store, "move": move, "extract": extract, "read": read, "write": write}

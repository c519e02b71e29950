"""Element-wise tile ops: tile.add/sub/mul/div/maximum/..., their scalar forms and unary ops."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pypto_core.ir.enums import MemorySpace
from pypto_core.ir.expr import Expr
from pypto_core.ir.types import ScalarType, TileType, TileView, Type
from pypto_core.ops.build import broadcast_shapes, promote_dtypes
from pypto_core.ops.opdef import ArgSpec, KwargSpec, OpDef, OutputMemory


def _tile(op: str, e: Expr, what: str) -> TileType:
    if not isinstance(e.type, TileType):
        raise TypeError(f"{op}: {what} must be a tile, got {e.type}")
    return e.type


def result_view(src: TileType, shape: Sequence[Expr]) -> TileView | None:
    """Element-wise results keep the valid region of their first operand when shapes agree."""
    if src.tile_view is None or not src.tile_view.valid_shape or len(src.shape) != len(shape):
        return None
    return TileView(valid_shape=list(src.tile_view.valid_shape))


def binary_deducer(op: str):
    def deduce(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
        lhs, rhs = _tile(op, args[0], "lhs"), _tile(op, args[1], "rhs")
        shape = broadcast_shapes(lhs.shape, rhs.shape, op)
        dtype = promote_dtypes(lhs.dtype, rhs.dtype, op)
        return TileType(shape, dtype, None, result_view(lhs, shape), None)

    return deduce


def scalar_deducer(op: str):
    def deduce(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
        lhs = _tile(op, args[0], "lhs")
        if not isinstance(args[1].type, ScalarType):
            raise TypeError(f"{op}: rhs must be a scalar, got {args[1].type}")
        return TileType(lhs.shape, lhs.dtype, None, result_view(lhs, lhs.shape), None)

    return deduce


def unary_deducer(op: str):
    def deduce(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
        src = _tile(op, args[0], "operand")
        return TileType(src.shape, src.dtype, None, result_view(src, src.shape), None)

    return deduce


_VEC = OutputMemory(fixed=MemorySpace.Vec)
BINARY = ("add", "sub", "mul", "div", "maximum", "minimum")
SCALAR = ("adds", "subs", "muls", "divs", "maxs", "mins")
UNARY = ("exp", "neg", "abs", "sqrt", "log", "relu")


def _binary(name: str) -> OpDef:
    op = f"tile.{name}"
    return OpDef(op, binary_deducer(op), args=(ArgSpec("lhs"), ArgSpec("rhs")), output_memory=_VEC,
                 doc=f"Element-wise {name} of two tiles (numpy broadcasting).")


def _scalar(name: str) -> OpDef:
    op = f"tile.{name}"
    return OpDef(op, scalar_deducer(op), args=(ArgSpec("lhs"), ArgSpec("rhs")), output_memory=_VEC,
                 doc=f"Element-wise {name[:-1]} of a tile and a scalar.")


def _unary(name: str, kwargs: tuple[KwargSpec, ...] = ()) -> OpDef:
    op = f"tile.{name}"
    return OpDef(op, unary_deducer(op), args=(ArgSpec("tile"),), kwargs=kwargs, output_memory=_VEC,
                 doc=f"Element-wise {name}.")


OPDEFS = [
    *[_binary(n) for n in BINARY],
    *[_scalar(n) for n in SCALAR],
    *[_unary(n) for n in UNARY],
    _unary("recip", (KwargSpec("high_precision", (bool,), False),)),
]

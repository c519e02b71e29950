"""The `pl` DSL names and IR builders of the ops_tile plugin (API.md 3.2-3.6).

One Python function per op serves both as the DSL function the parser calls for `pl.tile.load(...)`
and as the IR builder `pypto.ir.op.tile_ops.load`. Unified names (`pl.add`, `pl.load`, ...) dispatch
on the operand kinds (API.md 3.2).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pypto_core.ir import scalar_ops
from pypto_core.ir.enums import AtomicType, MemorySpace, TileLayout
from pypto_core.ir.expr import Call, Expr
from pypto_core.ir.span import Span
from pypto_core.ops.build import (
    element_dtype,
    is_scalar,
    is_tensor,
    is_tile,
    retype_literal,
    to_expr,
    to_int,
    to_tuple,
)
from pypto_core.ops.registry import create_op_call

Builder = Callable[..., Any]


def _kind(e: Expr) -> str:
    if is_tensor(e):
        return "Tensor"
    if is_tile(e):
        return "Tile"
    if is_scalar(e):
        return "Scalar"
    return type(e.type).__name__


# -- tile builders (T = pypto.ir.op.tile_ops) ------------------------------------------------------
def load(tensor: Expr, offsets: Any, shapes: Any, valid_shape: Any = None,
         target_memory: MemorySpace = MemorySpace.Vec, clamp: bool = False, span: Span | None = None) -> Call:
    shape_t = to_tuple(shapes, span)
    valid_t = shape_t if valid_shape is None else to_tuple(valid_shape, span)
    kwargs: dict[str, Any] = {"target_memory": target_memory}
    if clamp:
        kwargs["clamp"] = True
    return create_op_call("tile.load", [tensor, to_tuple(offsets, span), shape_t, valid_t], kwargs, span=span)


def store(tile: Expr, offsets: Any, output_tensor: Expr, shapes: Any = None, span: Span | None = None, *,
          atomic: Any = 0) -> Call:
    args = [tile, to_tuple(offsets, span), output_tensor]
    if shapes is not None:
        args.append(to_tuple(shapes, span))
    kwargs = {"atomic": 1} if to_int(atomic, "atomic") == int(AtomicType.Add) else {}
    return create_op_call("tile.store", args, kwargs, span=span)


def move(tile: Expr, target_memory: MemorySpace, blayout: TileLayout | None = None,
         slayout: TileLayout | None = None, span: Span | None = None) -> Call:
    kwargs: dict[str, Any] = {"target_memory": target_memory}
    if blayout is not None:
        kwargs["blayout"] = blayout
    if slayout is not None:
        kwargs["slayout"] = slayout
    return create_op_call("tile.move", [tile], kwargs, span=span)


def create(shape: Any, dtype: Any, target_memory: MemorySpace = MemorySpace.Vec, transpose: Any = None,
           span: Span | None = None, *, flat_layout: Any = None) -> Call:
    kwargs: dict[str, Any] = {"dtype": dtype, "target_memory": target_memory}
    if transpose is not None:
        kwargs["transpose"] = bool(transpose)
    if flat_layout is not None:
        kwargs["flat_layout"] = bool(flat_layout)
    return create_op_call("tile.create", [to_tuple(shape, span)], kwargs, span=span)


def full(shape: Any, dtype: Any, value: Any, span: Span | None = None) -> Call:
    v = retype_literal(to_expr(value, span), dtype)
    return create_op_call("tile.full", [to_tuple(shape, span), v], {"dtype": dtype}, span=span)


def _tile_binary(name: str) -> Builder:
    def build(lhs: Expr, rhs: Any, span: Span | None = None) -> Call:
        rhs_e = to_expr(rhs, span)
        if is_tile(lhs) and not is_tile(rhs_e):
            return create_op_call(f"tile.{name}s", [lhs, retype_literal(rhs_e, element_dtype(lhs.type))], span=span)
        return create_op_call(f"tile.{name}", [lhs, rhs_e], span=span)

    build.__name__ = name
    return build


def _tile_scalar(name: str) -> Builder:
    def build(lhs: Expr, rhs: Any, span: Span | None = None) -> Call:
        rhs_e = retype_literal(to_expr(rhs, span), element_dtype(lhs.type))
        return create_op_call(f"tile.{name}", [lhs, rhs_e], span=span)

    build.__name__ = name
    return build


def _tile_unary(name: str) -> Builder:
    def build(tile: Expr, span: Span | None = None, **kwargs: Any) -> Call:
        return create_op_call(f"tile.{name}", [tile], kwargs, span=span)

    build.__name__ = name
    return build


# -- tensor builders ---------------------------------------------------------------------------
def _tensor_binary(name: str) -> Builder:
    def build(lhs: Expr, rhs: Any, span: Span | None = None) -> Call:
        rhs_e = to_expr(rhs, span)
        if not is_tensor(rhs_e):
            return create_op_call(f"tensor.{name}s", [lhs, retype_literal(rhs_e, element_dtype(lhs.type))],
                                  span=span)
        return create_op_call(f"tensor.{name}", [lhs, rhs_e], span=span)

    build.__name__ = name
    return build


def _tensor_unary(name: str) -> Builder:
    def build(tensor: Expr, span: Span | None = None) -> Call:
        return create_op_call(f"tensor.{name}", [tensor], span=span)

    build.__name__ = name
    return build


# -- unified names (API.md 3.2) ----------------------------------------------------------------
def _unified_binary(name: str, scalar_fn: Builder) -> Builder:
    def build(lhs: Any, rhs: Any, span: Span | None = None) -> Expr:
        a, b = to_expr(lhs, span), to_expr(rhs, span)
        ka, kb = _kind(a), _kind(b)
        if "Tensor" in (ka, kb) and "Tile" in (ka, kb):
            raise TypeError(f"cannot mix Tensor and Tile arguments ({ka}, {kb}); load the tensor into a tile "
                            f"first (pl.load) or store the tile (pl.store)")
        if ka == "Tensor":
            return _tensor_binary(name)(a, b, span)
        if ka == "Tile":
            return _tile_binary(name)(a, b, span)
        if ka == "Scalar" and kb == "Scalar":
            return scalar_fn(a, b, span)
        raise TypeError(f"unsupported operands ({ka}, {kb})")

    build.__name__ = name
    return build


def _unified_unary(name: str) -> Builder:
    def build(x: Expr, span: Span | None = None, **kwargs: Any) -> Expr:
        if is_tensor(x):
            return _tensor_unary(name)(x, span)
        if is_tile(x):
            return _tile_unary(name)(x, span, **kwargs)
        raise TypeError(f"expects a tensor or a tile, got {_kind(x)}")

    build.__name__ = name
    return build


_SCALAR_FN = {"add": scalar_ops.add, "sub": scalar_ops.sub, "mul": scalar_ops.mul, "div": scalar_ops.truediv,
              "maximum": scalar_ops.max_, "minimum": scalar_ops.min_}

TILE: dict[str, Builder] = {
    "load": load, "store": store, "move": move, "create": create, "full": full,
    **{n: _tile_binary(n) for n in ("add", "sub", "mul", "div", "maximum", "minimum")},
    **{n: _tile_scalar(n) for n in ("adds", "subs", "muls", "divs", "maxs", "mins")},
    **{n: _tile_unary(n) for n in ("exp", "neg", "abs", "sqrt", "log", "relu", "recip")},
}

def _tensor_scalar(name: str) -> Builder:
    def build(lhs: Expr, rhs: Any, span: Span | None = None) -> Call:
        rhs_e = retype_literal(to_expr(rhs, span), element_dtype(lhs.type))
        return create_op_call(f"tensor.{name}", [lhs, rhs_e], span=span)

    build.__name__ = name
    return build


TENSOR: dict[str, Builder] = {
    **{n: _tensor_binary(n) for n in ("add", "sub", "mul", "div", "maximum", "minimum")},
    **{n: _tensor_scalar(n) for n in ("adds", "subs", "muls", "divs", "maxs", "mins")},
    **{n: _tensor_unary(n) for n in ("exp", "neg", "abs", "sqrt", "log", "relu", "recip")},
}

UNIFIED: dict[str, Builder] = {
    "load": load, "store": store, "move": move,
    **{n: _unified_binary(n, f) for n, f in _SCALAR_FN.items()},
    **{n: _unified_unary(n) for n in ("exp", "neg", "abs", "sqrt", "log", "relu", "recip")},
}


def register(registry: Any) -> None:
    for name, fn in TILE.items():
        registry.register_dsl(f"tile.{name}", fn)
        registry.register_builder("tile", name, fn)
    for name, fn in TENSOR.items():
        registry.register_dsl(f"tensor.{name}", fn)
        registry.register_builder("tensor", name, fn)
    for name, fn in UNIFIED.items():
        registry.register_dsl(name, fn)

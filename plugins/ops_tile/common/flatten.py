"""Building blocks of the 2-D forms (the `flatten_2d` op interface: how FlattenTileNdTo2D rewrites a call on
N-D tiles, docs/passes/flatten_tile_nd_to_2d.md).

An N-D tile [d0, ..., dk] becomes [d0 * ... * d(k-1), dk]: element (i0, ..., ik) is row
i0 * d1 * ... * d(k-1) + ... + i(k-1), column ik. An op whose operands describe a shape or a position
rewrites them (its rule lives with the op in families/); every other op keeps the generic rule: the same
op on the flattened operands.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from pypto_core.ir.expr import Call, Expr, MakeTuple, Var
from pypto_core.ir.types import TileType, Type
from pypto_core.ops.build import dims_product, merged_2d, same_dim, shape_text, static_int, tuple_elements
from pypto_core.ops.registry import create_op_call


class Flatten2DContext(Protocol):
    """What FlattenTileNdTo2D offers a rule: helper statements before the call's statement, the definitions
    of the rewritten variables, and the statement after it (a batched product writes its store per batch)."""

    mat_capacity: int | None  # the configured backend's Mat bytes, None without a backend

    def bind(self, value: Expr, name_hint: str) -> Var:
        """Bind a helper value to a fresh variable before the statement."""
        ...

    def definition(self, e: Expr) -> Call | None:
        """The rewritten call defining a variable of the rewritten body."""
        ...

    def original_type(self, e: Expr) -> Type:
        """The type a variable of the rewritten body had before the pass (its N-D type)."""
        ...

    def column_batched(self, e: Expr) -> bool:
        """Whether a variable of the rewritten body is a column-batched tile (see `column_batching`)."""
        ...

    def result_name(self, default: str) -> str:
        """The name of the variable the call is bound to (default for an unbound call)."""
        ...

    def is_result(self, e: Expr) -> bool:
        """Whether e is the variable the call is bound to."""
        ...

    def following_call(self) -> Call | None:
        """The next statement's call (operands rewritten) when it is the only reader of the result."""
        ...

    def following_name(self) -> str:
        """The name of the variable the next statement binds."""
        ...

    def consume_following(self, value: Var) -> None:
        """The rule wrote the next statement too: its variable now stands for value."""
        ...

    def bind_result(self, value: Expr) -> Var:
        """Bind a helper value under the exact name of the variable the call is bound to (the first of a
        multi-statement form takes it, as PyPTO prints them; later ones get `<name>_1`, ... from `bind`)."""
        ...

    def drop_if_unused(self, var: Expr) -> None:
        """Remove the statement binding `var` once the function is rewritten, if nothing reads it then (a
        whole operand a batched product re-loads per batch)."""
        ...


# An implementation of the flatten_2d op interface: (call, flattened operands, context) -> the 2-D call, or a
# variable the context bound (the statement then is the helpers alone, its variable stands for that one).
Flatten2D = Callable[[Call, Sequence[Expr], Flatten2DContext], Expr]


def column_batching(kind: str) -> Callable[[Flatten2D], Flatten2D]:
    """Mark how a rule deals with *column-batched* tiles: an N-D `tile.transpose_view` flattens to [K, B*N],
    its pages side by side, not the [B*N, K] every other rule assumes. "produces": the rule's result is such a
    tile (when its operand was N-D); "keeps": the rule reads one and its result is one too (a batch-only
    reshape); "reads": the rule reads one (a batched product). FlattenTileNdTo2D refuses any other op reading a
    column-batched tile, whose values it would misread."""
    assert kind in ("produces", "keeps", "reads")

    def mark(rule: Flatten2D) -> Flatten2D:
        rule.column_batching = kind  # type: ignore[attr-defined]
        return rule

    return mark


def rewrites_2d(rule: Flatten2D) -> Flatten2D:
    """Mark a rule that also rewrites calls on 2-D tiles (a 3-arg `tile.transpose` gets its scratch operand):
    the pass calls it for every call of the op, not only for calls on N-D tiles."""
    rule.rewrites_2d = True  # type: ignore[attr-defined]
    return rule


def rebuild(call: Call, args: Sequence[Expr]) -> Call:
    """The call on other operands, its type deduced again."""
    return create_op_call(call.op.name, list(args), dict(call.kwargs), span=call.span)


def tile_type(e: Expr) -> TileType:
    t = e.type
    assert isinstance(t, TileType)
    return t


def merge_shape_operand(index: int) -> Flatten2D:
    """The 2-D form of an op whose operand `index` is its result's shape: the leading dims merged."""

    def flatten_shape(call: Call, args: Sequence[Expr], ctx: Flatten2DContext) -> Call:
        dims = tuple_elements(args[index])
        if len(dims) <= 2:
            return rebuild(call, args)
        new = list(args)
        new[index] = MakeTuple(merged_2d(dims))
        return rebuild(call, new)

    return flatten_shape


def rows_window(outer: Sequence[Expr], extents: Sequence[Expr], offsets: Sequence[Expr],
                what: str) -> tuple[list[Expr], list[Expr]]:
    """A window of an N-D tile as a 2-D (extents, offsets), when it spans the whole middle dims (offset 0
    there, a rectangle of rows); anything else is a ValueError FlattenTileNdTo2D reports with its location."""
    for i in range(1, len(outer) - 1):
        if not same_dim(extents[i], outer[i]) or static_int(offsets[i]) != 0:
            raise ValueError(f"the {what} {shape_text(extents)} at {shape_text(offsets)} of a {shape_text(outer)} "
                             f"tile is not a block of whole rows once the leading dims merge (dim {i} must be "
                             f"spanned from 0)")
    rows = dims_product([extents[0], *outer[1:-1]])
    first = dims_product([offsets[0], *outer[1:-1]])
    return [rows, extents[-1]], [first, offsets[-1]]

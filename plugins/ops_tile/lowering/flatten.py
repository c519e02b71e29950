"""2-D forms of the tile ops that describe shapes or positions (OpDef.flatten_2d, FlattenTileNdTo2D).

An N-D tile [d0, ..., dk] becomes [d0 * ... * d(k-1), dk]: element (i0, ..., ik) is row
i0 * d1 * ... * d(k-1) + ... + i(k-1), column ik. So:
* tile.load keeps its N-D tensor window and gets 2-D valid extents (the region must be whole rows);
* tile.store of a flattened tile gets the N-D extents it writes as its `shapes` operand;
* tile.create / tile.full / tile.reshape take the merged shape;
* tile.read / tile.write linearise their indices;
* tile.slice / tile.assemble windows must span the whole middle dims (offset 0 there) to stay a
  rectangle of rows; anything else raises ValueError (FlattenTileNdTo2D reports it with its location).
Every other op keeps the generic rule: the same op on the flattened operands.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from pypto_core.ir.expr import Call, Expr, MakeTuple
from pypto_core.ir.types import TileType
from pypto_core.ops.build import (
    dims_product,
    dims_sum,
    flat_valid,
    merged_2d,
    same_dim,
    shape_text,
    static_int,
    tuple_elements,
)
from pypto_core.ops.registry import create_op_call

# An implementation of the flatten_2d op interface: (call, flattened operands) -> the 2-D call.
Flatten2D = Callable[[Call, Sequence[Expr]], Call]


def _rebuild(call: Call, args: Sequence[Expr]) -> Call:
    return create_op_call(call.op.name, list(args), dict(call.kwargs), span=call.span)


def _tile_type(e: Expr) -> TileType:
    t = e.type
    assert isinstance(t, TileType)
    return t


def _load(call: Call, args: Sequence[Expr]) -> Call:
    t = _tile_type(call)
    if len(t.shape) <= 2:
        return _rebuild(call, args)
    valid = MakeTuple(flat_valid(t.shape, t.valid_shape))
    return _rebuild(call, [*args[:3], valid])


def _store(call: Call, args: Sequence[Expr]) -> Call:
    src = _tile_type(call.args[0])
    if len(src.shape) <= 2 or len(args) > 3:
        return _rebuild(call, args)
    return _rebuild(call, [*args[:3], MakeTuple(list(src.valid_shape))])


def _shape_arg(index: int) -> Flatten2D:
    def flatten(call: Call, args: Sequence[Expr]) -> Call:
        dims = tuple_elements(args[index])
        if len(dims) <= 2:
            return _rebuild(call, args)
        new = list(args)
        new[index] = MakeTuple(merged_2d(dims))
        return _rebuild(call, new)

    return flatten


def _row_index(shape: Sequence[Expr], index: Sequence[Expr]) -> Expr:
    """The merged row of an N-D position: i0 * d1 * ... * d(k-1) + ... + i(k-1)."""
    return dims_sum([dims_product([e, *shape[i + 1:-1]]) for i, e in enumerate(index[:-1])])


def _indices(call: Call, args: Sequence[Expr]) -> Call:
    src = _tile_type(call.args[0])
    if len(src.shape) <= 2:
        return _rebuild(call, args)
    index = tuple_elements(args[1])
    new = list(args)
    new[1] = MakeTuple([_row_index(src.shape, index), index[-1]])
    return _rebuild(call, new)


def _window(outer: Sequence[Expr], extents: Sequence[Expr], offsets: Sequence[Expr], what: str) -> tuple[list[Expr], list[Expr]]:
    """A window of an N-D tile as a 2-D (extents, offsets), when it spans the whole middle dims."""
    for i in range(1, len(outer) - 1):
        if not same_dim(extents[i], outer[i]) or static_int(offsets[i]) != 0:
            raise ValueError(f"the {what} {shape_text(extents)} at {shape_text(offsets)} of a {shape_text(outer)} "
                             f"tile is not a block of whole rows once the leading dims merge (dim {i} must be "
                             f"spanned from 0)")
    rows = dims_product([extents[0], *outer[1:-1]])
    first = dims_product([offsets[0], *outer[1:-1]])
    return [rows, extents[-1]], [first, offsets[-1]]


def _slice(call: Call, args: Sequence[Expr]) -> Call:
    src = _tile_type(call.args[0])
    if len(src.shape) <= 2:
        return _rebuild(call, args)
    if len(args) > 4 and tuple_elements(args[4]):
        raise ValueError("drop_dims of an N-D slice: reshape the tile to 2-D first")
    shape, offset = _window(src.shape, tuple_elements(args[1]), tuple_elements(args[2]), "window")
    new = [args[0], MakeTuple(shape), MakeTuple(offset)]
    if len(args) > 3 and tuple_elements(args[3]):
        new.append(MakeTuple(flat_valid(tuple_elements(args[1]), tuple_elements(args[3]))))
    return _rebuild(call, new)


def _assemble(call: Call, args: Sequence[Expr]) -> Call:
    target, source = _tile_type(call.args[0]), _tile_type(call.args[1])
    if len(target.shape) <= 2:
        return _rebuild(call, args)
    _, offset = _window(target.shape, source.shape, tuple_elements(args[2]), "source")
    return _rebuild(call, [args[0], args[1], MakeTuple(offset)])


def flatten_rules() -> dict[str, Flatten2D]:
    return {
        "tile.load": _load,
        "tile.store": _store,
        "tile.create": _shape_arg(0),
        "tile.full": _shape_arg(0),
        "tile.reshape": _shape_arg(1),
        "tile.read": _indices,
        "tile.write": _indices,
        "tile.slice": _slice,
        "tile.assemble": _assemble,
    }

"""Tile forms of the tensor ops that create, view, read or write tensors.

What an op becomes depends on whether its tensor operand is still in global memory (a parameter, a
store's result) or already a tile (a value the kernel computed):

| tensor op            | on a GM tensor                               | on a tile                       |
|----------------------|----------------------------------------------|---------------------------------|
| slice                | tile.load of the window                      | tile.slice                      |
| reshape              | tile.load of the whole tensor + tile.reshape | tile.reshape                    |
| transpose / reinterpret_view | loaded whole, then the tile op       | the tile op                     |
| assemble(target, ..) | tile.store into the target                   | tile.assemble                   |
| read / write         | stays (a scalar access of GM)                | tile.read / tile.write          |
| dim                  | stays                                        | the tile's extent               |

`tensor.create` becomes `tile.create` (memory space left to InferTileMemorySpace; `init_value` makes
it a `tile.full`), `tensor.full` becomes `tile.full`. `drop_dims` of a slice is a `tile.reshape` to the
slice's rank-reduced shape (tile.slice would pad the result back to 2-D).
"""

from __future__ import annotations

from pypto_core.errors import UserError
from pypto_core.ir.enums import PadValue
from pypto_core.ir.expr import Call, ConstFloat, ConstInt, Expr, MakeTuple
from pypto_core.ir.types import TensorType, TileType
from pypto_core.ops.build import static_int, tuple_elements
from pypto_core.ops.tile_form import TileForm, TileLowering


def _result_shape(call: Call) -> MakeTuple:
    t = call.type
    assert isinstance(t, TensorType)
    return MakeTuple(list(t.shape))


def _slice(ctx: TileLowering, call: Call) -> Expr:
    src, shape, offset = call.args[0], call.args[1], call.args[2]
    valid = call.args[3] if len(call.args) > 3 and tuple_elements(call.args[3]) else None
    dropped = len(call.args) > 4 and bool(tuple_elements(call.args[4]))
    pad = call.kwargs.get("pad_value", PadValue.null)
    if ctx.is_gm(src):
        if pad is not PadValue.null:
            raise UserError(f"{call.op.name}: pad_value={pad.name} on a slice of a global tensor has no tile "
                            f"form: tile.load leaves the elements past the valid region undefined; slice "
                            f"the loaded tile instead (pl.slice of a tile takes pad_value)", call.span)
        window: Expr = ctx.load(src, offset, shape, valid, clamp=bool(call.kwargs.get("clamp")))
    else:
        args = [ctx.tile(src), shape, offset] + ([valid] if valid is not None else [])
        window = ctx.call("tile.slice", args, {"pad_value": pad} if pad is not PadValue.null else {})
    if dropped:
        return ctx.call("tile.reshape", [ctx.bind(window, "slice"), _result_shape(call)])
    return window


def _reshape(ctx: TileLowering, call: Call) -> Expr:
    reshaped = ctx.call("tile.reshape", [ctx.tile(call.args[0]), call.args[1]])
    valid = tuple_elements(call.args[2]) if len(call.args) > 2 else ()
    if len(valid) != 2:
        return reshaped  # (an N-D requested valid region stays in the tensor type only)
    return ctx.call("tile.set_validshape", [ctx.bind(reshaped, "reshaped"), *valid])


def _assemble(ctx: TileLowering, call: Call) -> Expr:
    target, source, offset = call.args
    atomic = call.kwargs.get("atomic", 0)
    if ctx.is_gm(target):
        tile = ctx.tile(source)
        _reject_empty_store(call, tile)
        return ctx.call("tile.store", [tile, offset, target], {"atomic": atomic} if atomic else {})
    return ctx.call("tile.assemble", [ctx.tile(target), ctx.tile(source), offset],
                    {"atomic": atomic} if atomic else {})


def _reject_empty_store(call: Call, tile: Expr) -> None:
    """An assemble into a GM tensor becomes a tile.store, which the hardware runs for a positive valid extent only
    (TSTORE): a source whose valid region is statically empty is the program's mistake (campaign seed 32)."""
    t = tile.type
    if not isinstance(t, TileType):
        return
    for axis, extent in enumerate(t.valid_shape):
        if static_int(extent) == 0:
            raise UserError(f"{call.op.name}: the value written here has an empty valid region (a valid extent of 0 "
                            f"on axis {axis}); the assemble into a global tensor becomes a tile.store, which the "
                            f"hardware runs only for a positive extent (TSTORE): give the window a positive "
                            f"valid extent, or leave the assemble out", call.span)


def _gm_or_tile(tile_op: str):
    """read / write: a scalar access of a GM tensor stays; on a tile it is the tile op."""

    def lower(ctx: TileLowering, call: Call) -> Expr:
        if ctx.is_gm(call.args[0]):
            return call
        return ctx.call(tile_op, [ctx.tile(call.args[0]), *call.args[1:]], dict(call.kwargs))

    return lower


def _dim(ctx: TileLowering, call: Call) -> Expr:
    if ctx.is_gm(call.args[0]):
        return call
    t = ctx.tile(call.args[0]).type
    assert isinstance(t, TileType)
    axis = static_int(call.args[1])
    assert axis is not None  # tensor.dim's deducer checked it
    return t.shape[axis % len(t.shape)]


def _create(ctx: TileLowering, call: Call) -> Expr:
    dtype = call.kwargs["dtype"]
    init = call.kwargs.get("init_value")
    if init is None:
        return ctx.call("tile.create", [call.args[0]], {"dtype": dtype})
    value: Expr = ConstFloat(float(init), dtype) if dtype.is_float() else ConstInt(int(init), dtype)
    return ctx.call("tile.full", [call.args[0], value], {"dtype": dtype})


def _same_loaded(tile_op: str):
    """An op on the data: a GM operand is loaded whole first."""

    def lower(ctx: TileLowering, call: Call) -> Expr:
        return ctx.call(tile_op, [ctx.tile(call.args[0]), *call.args[1:]], dict(call.kwargs))

    return lower


def _tile_load(ctx: TileLowering, call: Call) -> Expr:
    """A pl.load of a tensor the kernel now computes on chip (a tile): the window of that tile."""
    src, offsets, shapes = call.args[0], call.args[1], call.args[2]
    if ctx.is_gm(src):
        return ctx.call("tile.load", list(call.args), dict(call.kwargs))
    valid = call.args[3] if len(call.args) > 3 else None
    narrowed = valid is not None and not all(
        static_int(v) is not None and static_int(v) == static_int(s)
        for v, s in zip(tuple_elements(valid), tuple_elements(shapes)))
    return ctx.call("tile.slice", [src, shapes, offsets, *([valid] if narrowed else [])])


def _tile_store(ctx: TileLowering, call: Call) -> Expr:
    """A pl.store into a tensor the kernel now holds on chip (a tile): an assemble into that tile."""
    target = call.args[2]
    if ctx.is_gm(target):
        return ctx.call("tile.store", list(call.args), dict(call.kwargs))
    atomic = call.kwargs.get("atomic", 0)
    return ctx.call("tile.assemble", [target, call.args[0], call.args[1]], {"atomic": atomic} if atomic else {})


def tile_forms() -> dict[str, TileForm]:
    return {
        # Tile ops whose tensor operand became a tile (a tensor.slice / tensor.create of the kernel).
        "tile.load": TileForm(lower=_tile_load),
        "tile.store": TileForm(lower=_tile_store),
        "tensor.slice": TileForm(lower=_slice),
        "tensor.reshape": TileForm(lower=_reshape),
        "tensor.transpose": TileForm(lower=_same_loaded("tile.transpose")),
        "tensor.reinterpret_view": TileForm(lower=_same_loaded("tile.reinterpret_view")),
        "tensor.assemble": TileForm(lower=_assemble),
        "tensor.read": TileForm(lower=_gm_or_tile("tile.read"), gm_access=True),
        "tensor.write": TileForm(lower=_gm_or_tile("tile.write"), gm_access=True),
        "tensor.dim": TileForm(lower=_dim, gm_access=True),
        "tensor.create": TileForm(lower=_create),
        "tensor.full": TileForm(op="tile.full"),
        "tensor.aiv_shard": TileForm(op="tile.aiv_shard"),
        "tensor.aic_gather": TileForm(op="tile.aic_gather"),
    }

"""Pass rewrite rules of the views_alloc ops (issue 14): tile forms, 2-D flattening, split forms.

Tile forms (ConvertTensorToTileOps): tensor.ci / random / concat / fillpad / fillpad_expand are the tile op
of the same name on the operands' tiles; tensor.create_l1 is a `tile.create` in Mat; tensor.set_validshape
a `tile.set_validshape` of the tile; tensor.view a tile.reshape (a new ND shape; with valid_shape followed by
tile.set_validshape) or tile.transpose of the last two axes (an ND <-> DN flip without a shape); tensor.alloc
stays (a scalar declaration).

Split forms (LowerAutoVectorSplit): tile.tri is positional (rejected on the split axis, like tile.ci);
tile.concat halves with its operands on the row axis only (a column split would interleave the sources);
tile.fillpad_expand halves its shape operand when the split axis is not expanded.
"""

from __future__ import annotations

from typing import Any

from pypto_core.errors import UserError
from pypto_core.ir.enums import MemorySpace, TensorLayout
from pypto_core.ir.expr import Call, ConstInt, Expr, MakeTuple
from pypto_core.ir.types import TensorType
from pypto_core.ops.build import shape_text, tuple_elements
from pypto_core.ops.tile_form import TileForm, TileLowering


def _create_l1(ctx: TileLowering, call: Call) -> Expr:
    kwargs: dict[str, Any] = {"dtype": call.kwargs["dtype"], "target_memory": MemorySpace.Mat}
    if call.kwargs.get("transpose"):
        kwargs["transpose"] = True
    return ctx.call("tile.create", [call.args[0]], kwargs)


def _set_validshape(ctx: TileLowering, call: Call) -> Expr:
    return ctx.call("tile.set_validshape", [ctx.tile(call.args[0]), *call.args[1:]])


def _layout(t: Any) -> TensorLayout:
    view = t.tensor_view if isinstance(t, TensorType) else None
    return view.layout if view is not None and view.layout else TensorLayout.ND


def _view(ctx: TileLowering, call: Call) -> Expr:
    src, dst = call.args[0].type, call.type
    tile = ctx.tile(call.args[0])
    shape = tuple_elements(call.args[1]) if len(call.args) > 1 else ()
    if not shape:
        if _layout(src) is _layout(dst):
            return tile
        rank = len(dst.shape)  # type: ignore[union-attr]
        return ctx.call("tile.transpose", [tile, ConstInt(rank - 2), ConstInt(rank - 1)])
    if _layout(src) is not TensorLayout.ND or _layout(dst) is not TensorLayout.ND:
        raise UserError(f"tensor.view to {shape_text(shape)} with layout {_layout(dst).name} of a "
                        f"{_layout(src).name} tensor has no tile form; view the tensor outside the pl.at scope",
                        call.span)
    reshaped: Expr = ctx.call("tile.reshape", [tile, MakeTuple(list(shape))])
    if len(call.args) > 2 and tuple_elements(call.args[2]):
        rows, cols = tuple_elements(call.args[2])
        reshaped = ctx.call("tile.set_validshape", [ctx.bind(reshaped, "viewed"), rows, cols])
    return reshaped


def tile_forms() -> dict[str, Any]:
    return {
        "tensor.alloc": TileForm(lower=lambda ctx, call: call, gm_access=True),
        "tensor.create_l1": TileForm(lower=_create_l1),
        "tensor.ci": TileForm(op="tile.ci"),
        "tensor.random": TileForm(op="tile.random"),
        "tensor.concat": TileForm(op="tile.concat"),
        "tensor.fillpad": TileForm(op="tile.fillpad"),
        "tensor.fillpad_expand": TileForm(op="tile.fillpad_expand"),
        "tensor.set_validshape": TileForm(lower=_set_validshape),
        "tensor.view": TileForm(lower=_view),
    }


def flatten_rules() -> dict[str, Any]:
    return {}

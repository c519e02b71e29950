"""Transposes: tile.transpose (data movement), tile.transpose_view (a view) and tensor.transpose (a view of the
same memory).

IR layouts (docs/reference/ops.md): `tile.transpose(tile, axis1, axis2[, tmp])` (tmp: hardware scratch,
lane-invariant Scratch), `tile.transpose_view(tile)` swaps the last two axes and flips blayout / slayout (row
<-> col; none_box stays), `tensor.transpose(t, axis1, axis2[, valid_shape])` (valid_shape in the result's
order). Tile results keep the input's memory space.

tensor.transpose views the source's memory: its strides are the source's, swapped (recorded unless
row-major), and swapping the last two axes flips ND <-> DN, so `transpose(x, 0, 1)` of an [M, N] tensor is
`Tensor[[N, M], dtype, TensorView(stride=[1, N], layout=DN)]`; an MX_A_ZZ / MX_B_NN tensor cannot be
transposed. Its tile form is tile.transpose of the (whole, loaded) tile.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from pypto_core.ir.enums import MemorySpace, PadValue, TensorLayout, TileLayout
from pypto_core.ir.expr import Call, ConstInt, Expr, MakeTuple
from pypto_core.ir.types import TensorType, TensorView, TileType, Type, dims_equal
from pypto_core.ops.build import (
    require_tensor,
    require_tile,
    shape_text,
    static_dims,
    static_int,
    tuple_elements,
)
from pypto_core.ops.family import OpFamily
from pypto_core.ops.opdef import ArgSpec, LaneCategory, OpDef, OpTraits, OutputMemory
from pypto_core.ops.registry import create_op_call
from pypto_core.ops.tile_form import TileForm, TileLowering
from pypto_plugins.ops_tile.common.dsl import dispatch_between, registered, tile_only
from pypto_plugins.ops_tile.common.flatten import (
    Flatten2DContext,
    column_batching,
    rebuild,
    rewrites_2d,
    tile_type,
)
from pypto_plugins.ops_tile.common.shapes import row_major_strides, tensor_valid
from pypto_plugins.ops_tile.common.tile_forms import const_dims
from pypto_plugins.ops_tile.common.views import is_partial, valid_view

family = OpFamily("transpose", semantics="pypto_plugins.ops_tile.semantics.transpose")

_INHERIT = OutputMemory(inherit_input=0)
_FLIPPED = {TensorLayout.ND: TensorLayout.DN, TensorLayout.DN: TensorLayout.ND}


# -- type rules ---------------------------------------------------------------------------------------------
def _tile_axis(op: str, e: Expr, rank: int) -> int:
    a = static_int(e)
    if a is None:
        raise TypeError(f"{op}: axes must be constant integers")
    if not -rank <= a < rank:
        raise ValueError(f"{op}: axis {a} is out of range for a {rank}-D tile")
    return a + rank if a < 0 else a


def deduce_tile_transpose(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tile.transpose"
    src = require_tile(op, args[0], "the source")
    a1, a2 = _tile_axis(op, args[1], len(src.shape)), _tile_axis(op, args[2], len(src.shape))
    if len(args) > 3:
        require_tile(op, args[3], "tmp")
    shape, valid = list(src.shape), list(src.valid_shape)
    shape[a1], shape[a2] = shape[a2], shape[a1]
    valid[a1], valid[a2] = valid[a2], valid[a1]
    view = valid_view(valid, shape, src.memory_space) if is_partial(src) else None
    return TileType(shape, src.dtype, None, view, src.memory_space)


def deduce_tile_transpose_view(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tile.transpose_view"
    src = require_tile(op, args[0], "the source")
    if len(src.shape) < 2:
        raise TypeError(f"{op}: needs at least 2 dims, got {shape_text(src.shape)}")
    shape, valid = list(src.shape), list(src.valid_shape)
    shape[-1], shape[-2] = shape[-2], shape[-1]
    valid[-1], valid[-2] = valid[-2], valid[-1]
    eff = src.effective_view()
    flip = {TileLayout.row_major: TileLayout.col_major, TileLayout.col_major: TileLayout.row_major}
    view = eff.with_fields(valid_shape=tuple(valid), blayout=flip.get(eff.blayout, eff.blayout),
                           slayout=flip.get(eff.slayout, eff.slayout))
    return TileType(shape, src.dtype, None, view, src.memory_space)  # type: ignore[arg-type]


def _strides(t: TensorType) -> list[Expr]:
    """The element strides a tensor addresses its memory with: its view's, else its layout's packed ones."""
    view = t.tensor_view
    if view is not None and view.stride:
        return list(view.stride)
    if view is not None and view.layout is TensorLayout.DN and len(t.shape) >= 2:
        # DN stores the last two axes column-major: the strides of the swapped shape, swapped back.
        physical = [*t.shape[:-2], t.shape[-1], t.shape[-2]]
        strides = row_major_strides(physical)
        return [*strides[:-2], strides[-1], strides[-2]]
    return row_major_strides(t.shape)


def _tensor_axes(args: Sequence[Expr], rank: int) -> tuple[int, int]:
    axes = []
    for e in args[1:3]:
        a = static_int(e)
        if a is None or not -rank <= a < rank:
            raise ValueError(f"tensor.transpose: axes must be constants in range for a {rank}-D tensor")
        axes.append(a % rank)
    if axes[0] == axes[1]:
        raise ValueError(f"tensor.transpose: the two axes must differ, got {axes[0]} twice")
    return axes[0], axes[1]


def deduce_tensor_transpose(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tensor.transpose"
    src = require_tensor(op, args[0], "the source")
    rank = len(src.shape)
    if rank < 2:
        raise TypeError(f"{op}: the source must be at least 2-D, got {shape_text(src.shape)}")
    layout = src.tensor_view.layout if src.tensor_view is not None and src.tensor_view.layout else TensorLayout.ND
    if layout in (TensorLayout.MX_A_ZZ, TensorLayout.MX_B_NN):
        raise TypeError(f"{op}: a tensor with the {layout.name} layout cannot be transposed")
    a, b = _tensor_axes(args, rank)
    shape, strides, valid = list(src.shape), _strides(src), list(tensor_valid(src))
    for dims in (shape, strides, valid):
        dims[a], dims[b] = dims[b], dims[a]
    if len(args) > 3:
        valid = list(tuple_elements(args[3]))
        if len(valid) != rank:
            raise TypeError(f"{op}: valid_shape has {len(valid)} dims for a {rank}-D result")
    if {a, b} == {rank - 2, rank - 1}:
        layout = _FLIPPED.get(layout, layout)
    packed = layout is TensorLayout.ND and dims_equal(strides, row_major_strides(shape))
    pad = src.tensor_view.pad if src.tensor_view is not None else PadValue.null
    if packed and pad is PadValue.null and dims_equal(valid, shape):
        return TensorType(shape, src.dtype)
    return TensorType(shape, src.dtype, None, TensorView(stride=None if packed else strides, layout=layout,
                                                         valid_shape=valid, pad=pad))


# -- ops (builders derived from their signatures) -----------------------------------------------------------
family.op(OpDef("tile.transpose", deduce_tile_transpose,
                args=(ArgSpec("input"), ArgSpec("axis1"), ArgSpec("axis2"), ArgSpec("tmp", optional=True)),
                lane_invariant={3: LaneCategory.SCRATCH}, output_memory=_INHERIT,
                traits=OpTraits(swapped_axes_args=(1, 2)), doc="Swap two axes (data movement)."),
          dsl="tile.transpose")
family.op(OpDef("tile.transpose_view", deduce_tile_transpose_view, args=(ArgSpec("input"),), output_memory=_INHERIT,
                doc="Swap the last two axes as a view."), dsl="tile.transpose_view")
family.op(OpDef("tensor.transpose", deduce_tensor_transpose,
                args=(ArgSpec("input"), ArgSpec("axis1"), ArgSpec("axis2"), ArgSpec("valid_shape", optional=True)),
                traits=OpTraits(aliases_operand=True), doc="Swap two axes (a view of the same memory)."),
          dsl="tensor.transpose")


# -- tile forms ----------------------------------------------------------------------------------------------
def lower_tensor_transpose(ctx: TileLowering, call: Call) -> Expr:
    """tile.transpose of the tile (a GM operand is loaded whole first)."""
    return ctx.call("tile.transpose", [ctx.tile(call.args[0]), *call.args[1:]], dict(call.kwargs))


family.implement("tile_form", "tensor.transpose", TileForm(lower=lower_tensor_transpose))


family.dsl_function("transpose", dispatch_between("transpose", registered("tile.transpose"),
                                                  registered("tensor.transpose")))
family.dsl_function("transpose_view", tile_only("transpose_view", registered("tile.transpose_view")))


# Memory planning facts (docs/memory_planning.md): where a result's buffer lives, which operands it must not share.
family.set_traits("tile.transpose_view", buffer_view="view")
family.set_traits("tile.transpose", output_must_not_alias="all")  # data movement: a buffer of its own


# -- 2-D forms (FlattenTileNdTo2D, docs/passes/flatten_tile_nd_to_2d.md) ------------------------------------
@family.implements("flatten_2d", "tile.transpose")
@rewrites_2d
def flatten_transpose(call: Call, args: Sequence[Expr], ctx: Flatten2DContext) -> Expr:
    """A 2-D transpose gets its scratch operand (`transpose_tmp = tile.create(<input shape>)` in the input's
    space, else Vec). A swap of the last two axes of [.., a, b] is one 2-D transpose per [a, b] page, each
    through its own slice of a scratch pool, assembled at row i*b of the [B*b, a] result (B the product of the
    batch dims; the result's name goes to its tile.create, PyPTO's names). A swap involving a batch axis moves
    whole rows between pages and has no such form."""
    src = tile_type(call.args[0])
    rank = len(src.shape)
    if rank <= 2:
        if len(args) > 3:  # the scratch is there already
            return call if all(a is b for a, b in zip(args, call.args)) else rebuild(call, args)
        space = src.memory_space if src.memory_space is not None else MemorySpace.Vec
        tmp = ctx.bind(create_op_call("tile.create", [MakeTuple(list(tile_type(args[0]).shape))],
                                      {"dtype": src.dtype, "target_memory": space}, span=call.span),
                       "transpose_tmp")
        return rebuild(call, [*args, tmp])
    a1, a2 = _tile_axis(call.op.name, call.args[1], rank), _tile_axis(call.op.name, call.args[2], rank)
    if {a1, a2} != {rank - 2, rank - 1}:
        raise ValueError(f"only last-two-axes tile.transpose on >2D tiles is supported; transpose involving a "
                         f"batch axis (axes {a1}, {a2} of rank {rank}) is not yet lowered. Reshape the tile so "
                         f"that the swapped axes are the last two, or transpose the tensor outside the pl.at "
                         f"scope (pl.transpose)")
    dims = static_dims(src.shape)
    if dims is None:
        raise ValueError(f"the {rank}-D tile {shape_text(src.shape)} has a dynamic (non-constant) dimension, which "
                         f"cannot be flattened to 2D; iterate the dynamic dimension with pl.range, or reshape the "
                         f"tensor to 2D before the pl.at scope")
    pages, a, b = math.prod(dims[:-2]), dims[-2], dims[-1]
    space = src.memory_space if src.memory_space is not None else MemorySpace.Vec
    name = ctx.result_name("transposed")

    def create(rows: int, cols: int) -> Call:
        return create_op_call("tile.create", [const_dims(rows, cols)],
                              {"dtype": src.dtype, "target_memory": space}, span=call.span)

    result: Expr = ctx.bind_result(create(pages * b, a))
    pool = ctx.bind(create(pages * a, b), "trans_tmp_pool")
    for i in range(pages):
        page = ctx.bind(create_op_call("tile.slice", [args[0], const_dims(a, b), const_dims(i * a, 0)],
                                       span=call.span), f"trans_page_{i}")
        tmp = ctx.bind(create_op_call("tile.slice", [pool, const_dims(a, b), const_dims(i * a, 0)],
                                      span=call.span), f"trans_tmp_{i}")
        swapped = ctx.bind(create_op_call("tile.transpose", [page, ConstInt(0), ConstInt(1), tmp], span=call.span),
                           f"trans_{i}")
        result = ctx.bind(create_op_call("tile.assemble", [result, swapped, const_dims(i * b, 0)],
                                         span=call.span), name)
    return result


@family.implements("flatten_2d", "tile.transpose_view")
@column_batching("produces")
def flatten_transpose_view(call: Call, args: Sequence[Expr], ctx: Flatten2DContext) -> Call:
    """The view of the flattened [B*N, K] operand: [K, B*N], column-batched (batch i is the columns from i*N);
    a batched product reads its pages that way (tile.batch_matmul's 2-D form)."""
    return rebuild(call, args)

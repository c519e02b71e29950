"""Views: a window or another shape of the same data -- tile.slice / tensor.slice, tile.reshape /
tensor.reshape, tile.reinterpret_view / tensor.reinterpret_view, tile.set_validshape / tensor.set_validshape,
tensor.view (transposes are transpose.py). Tile results keep the input's memory space.

IR layouts (docs/reference/ops.md):
* `tile.slice(tile, shape, offset[, valid_shape[, drop_dims]])` kwarg `pad_value`; `tensor.slice(...)` kwargs
  `pad_value`, `clamp`. Trailing optional operands are written only when given, `[]` standing for a skipped
  valid_shape.
* `tile.reshape(tile, shape)`, `tensor.reshape(t, shape[, valid_shape])`; `tile.reinterpret_view(tile[,
  shape])` / `tensor.reinterpret_view(t[, shape])` kwarg `dtype` (the DSL takes `shape=` as a keyword, as the
  printer writes it); `tile.set_validshape(tile, rows, cols)`, `tensor.set_validshape(t, rows, cols)`;
  `tensor.view(t[, shape[, valid_shape]])` kwarg `layout`.

Rules:
* slice: the valid region is the requested one (or the shape) clipped to the source's valid region from the
  offset, for static dims; a window past the source's end is an error (tensor.slice: unless `clamp=True`,
  which narrows the valid region instead); drop_dims must name extent-1 dims; the result has the rank of the
  shape operand, and only a slice whose drop_dims removed axes is clamped back to >= 2-D by prepending 1s
  (docs/passes/lower_auto_vector_split.md, ops that describe a shape or an address).
* reshape: a partially valid tile may only insert / remove unit dims ([N, 1] <-> [1, N]), the valid extents
  moving with their dims (else: reshape the full tile, then set_validshape); a tensor's valid region is mapped
  through a row-major reshape that only merges / splits whole trailing dims or adds / removes unit dims, or is
  given as valid_shape (which must not exceed the mapped one).
* reinterpret_view without `shape` rescales the last dim by the dtype width ratio; with `shape` the byte size
  must agree; a partially valid tile keeps its valid region (last dim rescaled).
* tensor.view: the source's memory (row-major for ND, the last two axes column-major for DN) re-read with the
  new shape and layout; ND <-> DN without a shape swaps the last two axes; a new shape needs a packed input
  and, for a partly valid input, valid_shape (only for collapsing leading axes to 2-D).

Tile forms: of a GM tensor, slice is a tile.load of the window and reshape / reinterpret_view a load of the
whole tensor and the tile op; of a tile, the tile op. drop_dims of a slice is a tile.reshape to the slice's
rank-reduced shape; a 3-operand reshape sets the valid shape of a 2-D result; tensor.view is a tile.reshape
(ND shapes only) or a tile.transpose of the last two axes. 2-D forms: a slice window must span the whole middle
dims; reshape takes the merged shape.

Semantics: tile results are fresh arrays (tiles are values), except views of a tile in an aliasing space
(Acc): there a slice / reshape / set_validshape is a window of the parent's buffer, as on the device, so that
matmul_acc into an Acc slice writes the parent. Tensor views are numpy views of the caller's array, so that a
store through a slice writes the original tensor; a tensor window that hangs off the end (`clamp=True`) cannot
be a view and is read-only: a poisoned copy.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from pypto_core.errors import UserError
from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import PadValue, TensorLayout
from pypto_core.ir.expr import Call, ConstInt, Expr, MakeTuple
from pypto_core.ir.fresh_names import user_base
from pypto_core.ir.span import Span
from pypto_core.ir.types import TensorType, TensorView, TileType, TileView, Type, dims_equal
from pypto_core.ops.build import (
    check_window,
    flat_valid,
    require_rank,
    require_scalar,
    require_tensor,
    require_tile,
    same_dim,
    shape_text,
    static_dims,
    static_int,
    to_bool,
    to_dtype,
    to_tuple,
    tuple_elements,
)
from pypto_core.ops.family import OpFamily
from pypto_core.ops.opdef import ArgSpec, KwargSpec, OpDef, OpTraits, OutputMemory
from pypto_core.ops.registry import create_op_call
from pypto_core.ops.tile_form import TileForm, TileLowering
from pypto_plugins.ops_tile.common.dsl import dispatch_between, dsl_named, registered, set_if
from pypto_plugins.ops_tile.common.flatten import (
    Flatten2DContext,
    column_batching,
    merge_shape_operand,
    rebuild,
    rows_window,
)
from pypto_plugins.ops_tile.common.flatten import tile_type as flat_tile_type
from pypto_plugins.ops_tile.common.shapes import (
    clip_valid,
    product,
    rescale_extent,
    row_major_strides,
    tensor_valid,
)
from pypto_plugins.ops_tile.common.views import is_partial, relayout_view

family = OpFamily("views", semantics="pypto_plugins.ops_tile.semantics.views")

_INHERIT = OutputMemory(inherit_input=0)


# -- tile type rules ----------------------------------------------------------------------------------------
def drop_axes(dims: Sequence[Expr], drop: Sequence[int]) -> list[Expr]:
    kept = [d for i, d in enumerate(dims) if i not in drop]
    while len(kept) < 2:
        kept.insert(0, ConstInt(1))
    return kept


def deduce_tile_slice(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tile.slice"
    src = require_tile(op, args[0], "the source")
    shape, offsets = tuple_elements(args[1]), tuple_elements(args[2])
    rank = len(src.shape)
    if len(shape) != rank or len(offsets) != rank:
        raise TypeError(f"{op}: shape ({len(shape)}-D) and offset ({len(offsets)}-D) must match the "
                        f"{rank}-D source")
    check_window(op, "reads", offsets, shape, src.shape, "source")
    valid: Sequence[Expr] = tuple_elements(args[3]) if len(args) > 3 else ()
    if valid and len(valid) != rank:
        raise TypeError(f"{op}: valid_shape has {len(valid)} dims for a {rank}-D source")
    valid = clip_valid(valid or shape, offsets, src.valid_shape)
    drop: list[int] = []
    for d in (tuple_elements(args[4]) if len(args) > 4 else ()):
        axis = static_int(d)
        if axis is None:
            raise TypeError(f"{op}: drop_dims must be constant axes")
        axis = axis + rank if axis < 0 else axis
        if not 0 <= axis < rank or axis in drop:
            raise ValueError(f"{op}: drop_dims axis {static_int(d)} is out of range or repeated for a {rank}-D slice")
        if static_int(shape[axis]) != 1:
            raise ValueError(f"{op}: drop_dims can only drop extent-1 dims; dim {axis} of {shape_text(shape)} "
                             f"is not 1")
        drop.append(axis)
    # The rank of the shape operand; the >= 2-D clamp only when drop_dims removed axes.
    out_shape, out_valid = (drop_axes(shape, drop), drop_axes(valid, drop)) if drop else (list(shape), list(valid))
    view = relayout_view(src, out_valid, out_shape)
    if "pad_value" in kwargs:
        view = (view or TileView()).with_fields(pad=kwargs["pad_value"])  # type: ignore[assignment]
    return TileType(out_shape, src.dtype, None, view, src.memory_space)


def _squeezed(dims: Sequence[Expr]) -> list[Expr]:
    return [d for d in dims if static_int(d) != 1]


def deduce_tile_reshape(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tile.reshape"
    src = require_tile(op, args[0], "the source")
    shape = tuple_elements(args[1])
    old, new = static_dims(src.shape), static_dims(shape)
    if old is not None and new is not None and product(old) != product(new):
        raise TypeError(f"{op}: cannot reshape {shape_text(src.shape)} ({product(old)} elements) to "
                        f"{shape_text(shape)} ({product(new)} elements)")
    valid: list[Expr] = []
    if is_partial(src):
        moved = _squeezed(src.shape)
        if len(moved) != len(_squeezed(shape)) or not all(map(same_dim, moved, _squeezed(shape))):
            raise TypeError(f"{op}: cannot reshape a partially valid tile {shape_text(src.shape)} (valid "
                            f"{shape_text(src.valid_shape)}) to {shape_text(shape)}; only unit dims may be "
                            f"added or removed. Reshape the full tile, then pl.set_validshape")
        carried = iter(v for d, v in zip(src.shape, src.valid_shape) if static_int(d) != 1)
        valid = [d if static_int(d) == 1 else next(carried) for d in shape]
    return TileType(shape, src.dtype, None, relayout_view(src, valid, shape), src.memory_space)


def deduce_tile_reinterpret_view(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tile.reinterpret_view"
    src = require_tile(op, args[0], "the source")
    dtype = kwargs["dtype"]
    old_bits, new_bits = src.dtype.get_bit(), dtype.get_bit()
    if len(args) > 1:
        shape = list(tuple_elements(args[1]))
        old, new = static_dims(src.shape), static_dims(shape)
        if old is not None and new is not None and product(old) * old_bits != product(new) * new_bits:
            raise TypeError(f"{op}: {shape_text(src.shape)} {src.dtype.name} and {shape_text(shape)} "
                            f"{dtype.name} differ in size")
    else:
        shape = [*src.shape[:-1], rescale_extent(op, src.shape[-1], old_bits, new_bits)]
    valid: list[Expr] = []
    if is_partial(src):
        if len(shape) != len(src.shape) or not all(map(same_dim, shape[:-1], src.shape[:-1])):
            raise TypeError(f"{op}: a partially valid tile can only be reinterpreted along its last dim; "
                            f"got {shape_text(src.shape)} -> {shape_text(shape)}")
        valid = [*src.valid_shape[:-1], rescale_extent(op, src.valid_shape[-1], old_bits, new_bits)]
    return TileType(shape, dtype, None, relayout_view(src, valid, shape), src.memory_space)


def _valid_extents(op: str, args: Sequence[Expr], shape: Sequence[Expr], what: str,
                   names: tuple[str, str]) -> list[Expr]:
    """The (rows, cols) operands of set_validshape: integers within the shape."""
    extents = []
    for i, (e, name) in enumerate(zip(args[1:3], names)):
        t = require_scalar(op, e, name)
        if not t.dtype.is_int():
            raise TypeError(f"{op}: {name} must be an integer, got {t.dtype.name if what == 'tile' else e.type}")
        v, limit = static_int(e), static_int(shape[i])
        if v is not None and (v < 0 or (limit is not None and v > limit)):
            raise ValueError(f"{op}: {name} = {v} is outside 0..{limit} (the {what} is {shape_text(shape)})")
        extents.append(e)
    return extents


def deduce_tile_set_validshape(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tile.set_validshape"
    src = require_tile(op, args[0], "the tile")
    if len(src.shape) != 2:
        raise TypeError(f"{op}: needs a 2-D tile, got {shape_text(src.shape)}")
    extents = _valid_extents(op, args, src.shape, "tile", ("rows", "cols"))
    view = src.effective_view().with_fields(valid_shape=tuple(extents))
    return TileType(src.shape, src.dtype, None, view, src.memory_space)  # type: ignore[arg-type]


# -- tensor type rules --------------------------------------------------------------------------------------
def with_valid(src: TensorType, shape: Sequence[Expr], valid: Sequence[Expr], dtype: DataType | None = None) -> TensorType:
    """A result of `shape` whose valid region is `valid` (the view is dropped when it says nothing)."""
    view = None
    if not dims_equal(valid, shape):
        layout = src.tensor_view.layout if src.tensor_view is not None else None
        view = TensorView(layout=layout, valid_shape=list(valid))
    return TensorType(shape, dtype or src.dtype, None, view)


def deduce_tensor_slice(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tensor.slice"
    src = require_tensor(op, args[0], "the source")
    shape, offsets = tuple_elements(args[1]), tuple_elements(args[2])
    rank = len(src.shape)
    if len(shape) != rank or len(offsets) != rank:
        raise TypeError(f"{op}: shape ({len(shape)}-D) and offset ({len(offsets)}-D) must match the "
                        f"{rank}-D source")
    if not kwargs.get("clamp", False):
        check_window(op, "reads", offsets, shape, src.shape, "source")
    valid: Sequence[Expr] = tuple_elements(args[3]) if len(args) > 3 else ()
    if valid and len(valid) != rank:
        raise TypeError(f"{op}: valid_shape has {len(valid)} dims for a {rank}-D source")
    valid = clip_valid(valid or shape, offsets, tensor_valid(src))
    drop = set()
    for d in (tuple_elements(args[4]) if len(args) > 4 else ()):
        axis = static_int(d)
        if axis is None or not -rank <= axis < rank:
            raise ValueError(f"{op}: drop_dims must be constant axes of the {rank}-D slice")
        axis %= rank
        if static_int(shape[axis]) != 1:
            raise ValueError(f"{op}: drop_dims can only drop extent-1 dims; dim {axis} of {shape_text(shape)} "
                             f"is not 1")
        drop.add(axis)
    if len(drop) == rank:
        raise ValueError(f"{op}: drop_dims would drop every dim")
    keep = [i for i in range(rank) if i not in drop]
    return with_valid(src, [shape[i] for i in keep], [valid[i] for i in keep])


def reshape_valid(valid: Sequence[Expr], old: Sequence[Expr], new: Sequence[Expr]) -> list[Expr] | None:
    """The new shape for a fully valid source; else the valid region mapped through a row-major reshape that
    only merges / splits whole trailing dims or adds / removes unit dims (None when it is no box of the new
    shape)."""
    if dims_equal(valid, old):
        return list(new)
    squeeze = [i for i, d in enumerate(old) if static_int(d) != 1]
    kept = [i for i, d in enumerate(new) if static_int(d) != 1]
    if len(squeeze) == len(kept) and all(same_dim(old[i], new[j]) for i, j in zip(squeeze, kept)):
        carried = iter(valid[i] for i in squeeze)
        return [d if static_int(d) == 1 else next(carried) for d in new]
    # Only leading rows partly valid, the rest whole: rows of the old shape map onto rows of the new one.
    sv, so, sn = static_dims(valid), static_dims(old), static_dims(new)
    if sv is None or so is None or sn is None or sv[1:] != so[1:]:
        return None
    count, inner = product(sv), product(sn[1:])
    if count % inner:
        return None
    return [ConstInt(count // inner), *new[1:]]


def deduce_tensor_reshape(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tensor.reshape"
    src = require_tensor(op, args[0], "the source")
    shape = tuple_elements(args[1])
    old, new = static_dims(src.shape), static_dims(shape)
    if old is not None and new is not None and product(old) != product(new):
        raise TypeError(f"tensor.reshape: cannot reshape {shape_text(src.shape)} ({product(old)} elements) to "
                        f"{shape_text(shape)} ({product(new)} elements)")
    mapped = reshape_valid(tensor_valid(src), src.shape, shape)
    requested = tuple_elements(args[2]) if len(args) > 2 else ()
    if requested:
        if len(requested) != len(shape):
            raise TypeError(f"{op}: valid_shape has {len(requested)} dims for a {len(shape)}-D result")
        if mapped is not None and any(static_int(r) is not None and static_int(m) is not None and
                                      static_int(r) > static_int(m) for r, m in zip(requested, mapped)):
            raise ValueError(f"{op}: valid_shape {shape_text(requested)} exceeds the mapped valid region "
                             f"{shape_text(mapped)}")
        return with_valid(src, shape, requested)
    if mapped is None:
        raise TypeError(f"{op}: the valid region {shape_text(tensor_valid(src))} of {shape_text(src.shape)} is "
                        f"not a box of {shape_text(shape)}; give valid_shape (the 3-arg form)")
    pad = src.tensor_view.pad if src.tensor_view is not None else PadValue.null
    if dims_equal(mapped, shape) and pad is PadValue.null:
        return TensorType(shape, src.dtype)
    return TensorType(shape, src.dtype, None, TensorView(valid_shape=list(mapped), pad=pad))


def deduce_tensor_reinterpret_view(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tensor.reinterpret_view"
    src = require_tensor(op, args[0], "the source")
    dtype = kwargs["dtype"]
    if len(args) > 1:
        shape = list(tuple_elements(args[1]))
        old, new = static_dims(src.shape), static_dims(shape)
        if old is not None and new is not None and product(old) * src.dtype.get_bit() != \
                product(new) * dtype.get_bit():
            raise TypeError(f"{op}: {shape_text(src.shape)} {src.dtype.name} and {shape_text(shape)} {dtype.name} "
                            f"differ in size")
        return TensorType(shape, dtype)
    shape = [*src.shape[:-1], rescale_extent(op, src.shape[-1], src.dtype.get_bit(), dtype.get_bit())]
    return TensorType(shape, dtype)


def deduce_tensor_set_validshape(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tensor.set_validshape"
    src = require_tensor(op, args[0], "the tensor")
    require_rank(op, src.shape, 2, "the tensor")
    extents = _valid_extents(op, args, src.shape, "tensor", ("valid_rows", "valid_cols"))
    old = src.tensor_view or TensorView()
    view = TensorView(stride=old.stride, layout=old.layout, valid_shape=extents, pad=old.pad)
    return TensorType(src.shape, src.dtype, src.memref, view)


_VIEW_LAYOUTS = (TensorLayout.ND, TensorLayout.DN)


def _layout(t: Any) -> TensorLayout:
    view = t.tensor_view if isinstance(t, TensorType) else None
    return view.layout if view is not None and view.layout else TensorLayout.ND


def _packed(t: TensorType) -> bool:
    stride = t.tensor_view.stride if t.tensor_view is not None else ()
    if not stride:
        return True
    logical = list(t.shape) if _layout(t) is TensorLayout.ND else [*t.shape[:-2], t.shape[-1], t.shape[-2]]
    packed = row_major_strides(logical)
    if _layout(t) is TensorLayout.DN:
        packed = [*packed[:-2], packed[-1], packed[-2]]
    return dims_equal(stride, packed)


def deduce_tensor_view(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tensor.view"
    src = require_tensor(op, args[0], "the input")
    old = _layout(src)
    layout = kwargs.get("layout") or old
    for what, lay in (("the input", old), ("layout", layout)):
        if lay not in _VIEW_LAYOUTS:
            raise TypeError(f"{op}: {what} has layout {lay.name}; only ND and DN tensors can be viewed")
    shape_given = len(args) > 1 and bool(tuple_elements(args[1]))
    valid_given = len(args) > 2 and bool(tuple_elements(args[2]))
    if not shape_given:
        if valid_given:
            raise TypeError(f"{op}: valid_shape needs a shape (it is only for a collapse to 2-D)")
        shape, valid = list(src.shape), list(tensor_valid(src))
        if layout is not old:
            if len(shape) < 2:
                raise TypeError(f"{op}: a layout change needs at least 2 dims, got {shape_text(shape)}")
            shape[-2], shape[-1] = shape[-1], shape[-2]
            valid[-2], valid[-1] = valid[-1], valid[-2]
    else:
        shape = list(tuple_elements(args[1]))
        if not _packed(src):
            raise TypeError(f"{op}: a new shape needs a packed (contiguous) input")
        a, b = static_dims(src.shape), static_dims(shape)
        if a is not None and b is not None and product(a) != product(b):
            raise TypeError(f"{op}: cannot view {shape_text(src.shape)} ({product(a)} elements) as "
                            f"{shape_text(shape)} ({product(b)} elements)")
        partial = not dims_equal(tensor_valid(src), src.shape)
        if valid_given:
            valid = list(tuple_elements(args[2]))
            if len(valid) != 2 or len(shape) != 2 or len(src.shape) <= 2 or \
                    not all(map(same_dim, src.shape[-1:], shape[-1:])):
                raise TypeError(f"{op}: valid_shape is only for collapsing the leading axes of an N-D input to "
                                f"2-D (last dim kept); got {shape_text(src.shape)} -> {shape_text(shape)}")
        elif partial:
            raise TypeError(f"{op}: the input is only partly valid ({shape_text(tensor_valid(src))} of "
                            f"{shape_text(src.shape)}); give valid_shape or view the whole tensor")
        else:
            valid = shape
    lay = None if layout is TensorLayout.ND else layout
    if lay is None and dims_equal(valid, shape):
        return TensorType(shape, src.dtype, src.memref)
    return TensorType(shape, src.dtype, src.memref, TensorView(layout=lay, valid_shape=valid))


# -- ops ----------------------------------------------------------------------------------------------------
family.op(OpDef(
    "tile.slice", deduce_tile_slice,
    args=(ArgSpec("input"), ArgSpec("shape"), ArgSpec("offset"), ArgSpec("valid_shape", optional=True),
          ArgSpec("drop_dims", optional=True)),
    kwargs=(KwargSpec("pad_value", (PadValue,), PadValue.null),),
    output_memory=_INHERIT,
    traits=OpTraits(read_address_args=(2,), shape_describing=True, shape_args=(1, 2, 3), aliases_operand=True),
    doc="A window of a tile (a view; optional valid region, dropped unit dims, pad value).",
))
family.op(OpDef(
    "tile.reshape", deduce_tile_reshape,
    args=(ArgSpec("input"), ArgSpec("shape")),
    output_memory=_INHERIT,
    traits=OpTraits(shape_describing=True, shape_args=(1,), aliases_operand=True),
    doc="The same elements with another shape.",
))
family.op(OpDef(
    "tile.reinterpret_view", deduce_tile_reinterpret_view,
    args=(ArgSpec("data"), ArgSpec("shape", optional=True)),
    kwargs=(KwargSpec("dtype", (DataType,), required=True),),
    output_memory=_INHERIT,
    traits=OpTraits(shape_describing=True, shape_args=(1,), aliases_operand=True),
    doc="The same bytes read as another dtype (and optionally shape).",
))
family.op(OpDef(
    "tile.set_validshape", deduce_tile_set_validshape,
    args=(ArgSpec("tile"), ArgSpec("valid_rows"), ArgSpec("valid_cols")),
    output_memory=_INHERIT,
    doc="The same tile with another valid region.",
), dsl="tile.set_validshape")
family.op(OpDef("tensor.slice", deduce_tensor_slice,
                args=(ArgSpec("input"), ArgSpec("shape"), ArgSpec("offset"), ArgSpec("valid_shape", optional=True),
                      ArgSpec("drop_dims", optional=True)),
                kwargs=(KwargSpec("pad_value", (PadValue,), PadValue.null), KwargSpec("clamp", (bool,), False)),
                traits=OpTraits(read_address_args=(2,), shape_args=(1, 2, 3), aliases_operand=True),
                doc="A window of a tensor (a view)."))
family.op(OpDef("tensor.reshape", deduce_tensor_reshape,
                args=(ArgSpec("input"), ArgSpec("shape"), ArgSpec("valid_shape", optional=True)),
                traits=OpTraits(shape_args=(1, 2), aliases_operand=True), doc="The same elements with another shape."))
family.op(OpDef("tensor.reinterpret_view", deduce_tensor_reinterpret_view,
                args=(ArgSpec("data"), ArgSpec("shape", optional=True)),
                kwargs=(KwargSpec("dtype", (DataType,), required=True),),
                traits=OpTraits(shape_args=(1,), aliases_operand=True),
                doc="The same bytes read as another dtype (and optionally shape)."))
family.op(OpDef("tensor.set_validshape", deduce_tensor_set_validshape,
                args=(ArgSpec("tensor"), ArgSpec("valid_rows"), ArgSpec("valid_cols")),
                traits=OpTraits(aliases_operand=True),
                doc="The same tensor (a view) with valid region [valid_rows, valid_cols]."),
          dsl="tensor.set_validshape")
family.op(OpDef("tensor.view", deduce_tensor_view,
                args=(ArgSpec("input"), ArgSpec("shape", optional=True), ArgSpec("valid_shape", optional=True)),
                kwargs=(KwargSpec("layout", (TensorLayout,), None),),
                traits=OpTraits(shape_args=(1, 2), aliases_operand=True),
                doc="The same memory viewed with another shape and/or layout (ND <-> DN swaps the last two axes)."))


# -- tile forms ---------------------------------------------------------------------------------------------
def _result_shape(call: Call) -> MakeTuple:
    t = call.type
    assert isinstance(t, TensorType)
    return MakeTuple(list(t.shape))


def lower_tensor_slice(ctx: TileLowering, call: Call) -> Expr:
    """A window of a GM tensor is a tile.load; of a tile a tile.slice; drop_dims a tile.reshape after it."""
    src, shape, offset = call.args[0], call.args[1], call.args[2]
    valid = call.args[3] if len(call.args) > 3 and tuple_elements(call.args[3]) else None
    dropped = len(call.args) > 4 and bool(tuple_elements(call.args[4]))
    pad = call.kwargs.get("pad_value", PadValue.null)
    if ctx.is_gm(src):
        if pad is not PadValue.null:
            raise UserError(f"{call.op.name}: pad_value={pad.name} on a slice of a global tensor has no tile "
                            f"form: tile.load leaves the elements past the valid region undefined; slice "
                            f"the loaded tile instead (pl.slice of a tile takes pad_value)", call.span)
        window_of: Expr = ctx.load(src, offset, shape, valid, clamp=bool(call.kwargs.get("clamp")))
    else:
        args = [ctx.tile(src), shape, offset] + ([valid] if valid is not None else [])
        window_of = ctx.call("tile.slice", args, {"pad_value": pad} if pad is not PadValue.null else {})
    if dropped:  # PyPTO's names: a window loaded for a consumer's operand space keeps the result's name
        if not ctx.is_gm(src):
            name = "slice"
        elif ctx.load_space is not None and ctx.result is not None:
            name = f"{user_base(ctx.result)}__tile_full_rank"
        else:
            name = "slice_load"
        return ctx.call("tile.reshape", [ctx.bind(window_of, name), _result_shape(call)])
    return window_of


family.implement("tile_form", "tensor.slice", TileForm(lower=lower_tensor_slice))


def lower_tensor_reshape(ctx: TileLowering, call: Call) -> Expr:
    """tile.reshape of the (whole, loaded) tile; a 2-D requested valid region is a tile.set_validshape after it
    (an N-D one stays in the tensor type only)."""
    reshaped = ctx.call("tile.reshape", [ctx.tile(call.args[0]), call.args[1]])
    valid = tuple_elements(call.args[2]) if len(call.args) > 2 else ()
    if len(valid) != 2:
        return reshaped
    return ctx.call("tile.set_validshape", [ctx.bind(reshaped, "reshaped"), *valid])


family.implement("tile_form", "tensor.reshape", TileForm(lower=lower_tensor_reshape))


def lower_tensor_reinterpret_view(ctx: TileLowering, call: Call) -> Expr:
    """tile.reinterpret_view of the tile (a GM operand is loaded whole first)."""
    return ctx.call("tile.reinterpret_view", [ctx.tile(call.args[0]), *call.args[1:]], dict(call.kwargs))


family.implement("tile_form", "tensor.reinterpret_view", TileForm(lower=lower_tensor_reinterpret_view))


def lower_tensor_set_validshape(ctx: TileLowering, call: Call) -> Expr:
    return ctx.call("tile.set_validshape", [ctx.tile(call.args[0]), *call.args[1:]])


family.implement("tile_form", "tensor.set_validshape", TileForm(lower=lower_tensor_set_validshape))


def lower_tensor_view(ctx: TileLowering, call: Call) -> Expr:
    """A new ND shape is a tile.reshape (with valid_shape followed by tile.set_validshape); an ND <-> DN flip
    without a shape a tile.transpose of the last two axes."""
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


# A view of a GM tensor may stay in tile code (FlattenTileNdTo2D reads an N-D tensor through a 2-D view:
# docs/passes/flatten_tile_nd_to_2d.md), as PyPTO's IncoreTileOps lets it.
family.implement("tile_form", "tensor.view", TileForm(lower=lower_tensor_view, gm_access=True))


# -- 2-D forms ----------------------------------------------------------------------------------------------
@family.implements("flatten_2d", "tile.slice")
def flatten_slice(call: Call, args: Sequence[Expr], ctx: Flatten2DContext) -> Call:
    """The window must span the whole middle dims (offset 0 there) to stay a rectangle of rows."""
    src = flat_tile_type(call.args[0])
    if len(src.shape) <= 2:
        return rebuild(call, args)
    if len(args) > 4 and tuple_elements(args[4]):
        raise ValueError("drop_dims of an N-D slice: reshape the tile to 2-D first")
    shape, offset = rows_window(src.shape, tuple_elements(args[1]), tuple_elements(args[2]), "window")
    new = [args[0], MakeTuple(shape), MakeTuple(offset)]
    if len(args) > 3 and tuple_elements(args[3]):
        new.append(MakeTuple(flat_valid(tuple_elements(args[1]), tuple_elements(args[3]))))
    return rebuild(call, new)


_merged_reshape = merge_shape_operand(1)


@family.implements("flatten_2d", "tile.reshape")
@column_batching("keeps")
def flatten_reshape(call: Call, args: Sequence[Expr], ctx: Flatten2DContext) -> Expr:
    """The leading dims of the target shape merged. A column-batched operand (an N-D transpose_view, pages side
    by side) can only be reshaped in its batch dims (same last two dims, same batch product): its 2-D tile then
    stays as it is; any other reshape would regroup its elements, and is refused."""
    if not ctx.column_batched(args[0]):
        return _merged_reshape(call, args, ctx)
    src, dst = static_dims(flat_tile_type(call.args[0]).shape), static_dims(flat_tile_type(call).shape)
    if src is None or dst is None or len(dst) < 3 or src[-2:] != dst[-2:] or \
            math.prod(src[:-2]) != math.prod(dst[:-2]):
        raise ValueError(f"the reshape of the transposed view {shape_text(flat_tile_type(call.args[0]).shape)} to "
                         f"{shape_text(flat_tile_type(call).shape)} changes its matrices, and an N-D transposed view's "
                         f"pages lie side by side once flattened (column-batched); reshape before transposing "
                         f"(pl.reshape, then the transpose / a_trans / b_trans)")
    return rebuild(call, [args[0], MakeTuple(list(flat_tile_type(args[0]).shape))])


# -- DSL ----------------------------------------------------------------------------------------------------
def slice_args(x: Expr, shape: Any, offset: Any, valid_shape: Any, drop_dims: Any, span: Span | None) -> list[Expr]:
    """Trailing optional operands only when given; `[]` stands for a skipped valid_shape."""
    args = [x, to_tuple(shape, span), to_tuple(offset, span)]
    if valid_shape is not None or drop_dims is not None:
        args.append(to_tuple(valid_shape, span) if valid_shape is not None else MakeTuple([], span))
    if drop_dims is not None:
        args.append(to_tuple(drop_dims, span))
    return args


@family.dsl("tile.slice")
@dsl_named("slice")
def tile_slice(tile: Expr, shape: Any, offset: Any, valid_shape: Any = None, drop_dims: Any = None,
               pad_value: PadValue | None = None, span: Span | None = None) -> Call:
    kwargs: dict[str, Any] = {}
    set_if(kwargs, "pad_value", pad_value)
    return create_op_call("tile.slice", slice_args(tile, shape, offset, valid_shape, drop_dims, span), kwargs,
                          span=span)


@family.dsl("tensor.slice")
@dsl_named("slice")
def tensor_slice(tensor: Expr, shape: Any, offset: Any, valid_shape: Any = None, drop_dims: Any = None,
                 pad_value: PadValue | None = None, clamp: Any = False, span: Span | None = None) -> Call:
    kwargs: dict[str, Any] = {}
    set_if(kwargs, "pad_value", pad_value)
    set_if(kwargs, "clamp", to_bool(clamp, "clamp"), False)
    return create_op_call("tensor.slice", slice_args(tensor, shape, offset, valid_shape, drop_dims, span), kwargs,
                          span=span)


@family.dsl("tile.reshape")
@dsl_named("reshape")
def tile_reshape(tile: Expr, shape: Any, span: Span | None = None) -> Call:
    return create_op_call("tile.reshape", [tile, to_tuple(shape, span)], span=span)


@family.dsl("tensor.reshape")
@dsl_named("tensor_reshape")
def tensor_reshape(tensor: Expr, shape: Any, valid_shape: Any = None, span: Span | None = None) -> Call:
    """The optional valid_shape is tensor.reshape's 3-operand IR form, so that printed text re-parses."""
    args = [tensor, to_tuple(shape, span)] + ([to_tuple(valid_shape, span)] if valid_shape is not None else [])
    return create_op_call("tensor.reshape", args, span=span)


@family.dsl("tile.reinterpret_view")
@dsl_named("reinterpret_view")
def tile_reinterpret_view(tile: Expr, dtype: DataType, span: Span | None = None, *, shape: Any = None) -> Call:
    """shape is a keyword, as the printer writes it."""
    args = [tile] if shape is None else [tile, to_tuple(shape, span)]
    return create_op_call("tile.reinterpret_view", args, {"dtype": to_dtype(dtype)}, span=span)


@family.dsl("tensor.reinterpret_view")
@dsl_named("reinterpret_view")
def tensor_reinterpret_view(tensor: Expr, dtype: DataType, span: Span | None = None, *, shape: Any = None) -> Call:
    args = [tensor] if shape is None else [tensor, to_tuple(shape, span)]
    return create_op_call("tensor.reinterpret_view", args, {"dtype": to_dtype(dtype)}, span=span)


@family.dsl("tensor.view")
@dsl_named("view")
def tensor_view(tensor: Expr, shape: Any = None, valid_shape: Any = None, span: Span | None = None, *,
                layout: TensorLayout | None = None) -> Call:
    """`[]` stands for a skipped shape when valid_shape is given."""
    args = [tensor]
    if shape is not None or valid_shape is not None:
        args.append(to_tuple(shape, span) if shape is not None else MakeTuple([], span))
    if valid_shape is not None:
        args.append(to_tuple(valid_shape, span))
    kwargs: dict[str, Any] = {}
    set_if(kwargs, "layout", layout)
    return create_op_call("tensor.view", args, kwargs, span=span)


for _name in ("slice", "reshape", "reinterpret_view", "set_validshape"):
    family.dsl_function(_name, dispatch_between(_name, registered(f"tile.{_name}"), registered(f"tensor.{_name}")))


# -- what CanonicalizeTileSlice asks (docs/plugins.md, op interfaces) ------------------------------------------
def plain_2d_window(call: Call) -> tuple[Expr, list[Expr], list[Expr]] | None:
    """(source, shape, [row, col]) of `tile.slice(src, shape, [row, col])` (no valid_shape, no drop_dims)."""
    if len(call.args) != 3 or not isinstance(call.args[1], MakeTuple) or not isinstance(call.args[2], MakeTuple):
        return None
    if len(call.args[2].elements) != 2 or len(call.args[1].elements) != 2:
        return None
    return call.args[0], list(call.args[1].elements), list(call.args[2].elements)


def copy_window(source: Expr, row: Expr, col: Expr, shape: Sequence[Expr], target_memory: Any,
                span: Span | None) -> Call:
    """The window copied into a tile of its own: tile.extract(source, row, col, shape, target_memory=...)."""
    return create_op_call("tile.extract", [source, row, col, MakeTuple(list(shape))],
                          {"target_memory": target_memory}, span=span)


family.implement("tile_window", "tile.slice", {"window": plain_2d_window, "copy": copy_window})


# Memory planning facts (docs/memory_planning.md): where a result's buffer lives, which operands it must not share.
family.set_traits("tile.slice", "tensor.slice", buffer_view="window")
family.set_traits("tile.reshape", "tile.reinterpret_view", "tensor.reshape", "tensor.reinterpret_view", "tensor.view",
                  buffer_view="view")
family.set_traits("tile.set_validshape", buffer_view="relabel")
family.set_traits("tensor.set_validshape", buffer_view="relabel", output_reuses_input=0)

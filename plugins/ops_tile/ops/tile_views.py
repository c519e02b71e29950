"""Ops that re-shape or re-view a tile: slice, reshape, reinterpret_view, transpose, transpose_view,
set_validshape, and assemble (the write-side of slice). All keep the input's memory space.

IR layouts (docs/reference/ops.md):
* `tile.slice(tile, shape, offset[, valid_shape[, drop_dims]])` - trailing optional args only when
  given, `[]` as a placeholder; kwarg `pad_value`.
* `tile.reshape(tile, shape)`; `tile.reinterpret_view(tile[, shape])` with kwarg `dtype`.
* `tile.transpose(tile, axis1, axis2[, tmp])`; `tile.transpose_view(tile)`.
* `tile.set_validshape(tile, rows, cols)`; `tile.assemble(target, source, offset)` (kwarg `atomic`).

Choices of pypto's own, where PyPTO's documents are silent:
* slice: the valid region is the requested one (or the shape) clipped to the source's valid region
  from the offset, for static dims; a window past the source's end is an error. drop_dims must name
  extent-1 dims; the result is clamped to >= 2-D by prepending 1s (docs/passes/lower_auto_vector_split.md, ops that describe a shape or an address).
* reshape of a partially valid tile is only allowed when it just inserts/removes unit dims
  ([N, 1] <-> [1, N]); the valid extents move with their dims. Otherwise it is an error.
* reinterpret_view without `shape` rescales the last dim by the dtype width ratio; with `shape`
  the byte size must agree. A partially valid tile keeps its valid region (last dim rescaled).
* transpose's tmp is hardware scratch (Scratch lane category); transpose_view flips the blayout.
* assemble writes the source's valid region; arg 0 is ReadWrite (OPS.md); the result's valid region is
  WUNION(target, source, offset). `atomic` is kept as an extension (OPS.md's tile.assemble has no kwargs):
  ConvertTensorToTileOps lowers an atomic tensor.assemble into an on-chip target to it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import PadValue, TileLayout
from pypto_core.ir.expr import ConstInt, Expr
from pypto_core.ir.types import ScalarType, TileType, TileView, Type
from pypto_core.ops.build import (
    check_window,
    require_scalar,
    require_tile,
    same_dim,
    shape_text,
    static_dims,
    static_int,
    tuple_elements,
)
from pypto_core.ops.opdef import (
    ArgSpec,
    Effect,
    KwargSpec,
    LaneCategory,
    OpDef,
    OpTraits,
    OutputMemory,
)
from pypto_plugins.ops_tile.ops.shapes import clip_valid, product, rescale_extent, wunion
from pypto_plugins.ops_tile.ops.views import is_partial, relayout_view, same_view, valid_view

_INHERIT = OutputMemory(inherit_input=0)


def drop_axes(dims: Sequence[Expr], drop: Sequence[int]) -> list[Expr]:
    kept = [d for i, d in enumerate(dims) if i not in drop]
    while len(kept) < 2:
        kept.insert(0, ConstInt(1))
    return kept


def deduce_slice(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
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
    out_shape, out_valid = drop_axes(shape, drop), drop_axes(valid, drop)
    view = relayout_view(src, out_valid, out_shape)
    if "pad_value" in kwargs:
        view = (view or TileView()).with_fields(pad=kwargs["pad_value"])  # type: ignore[assignment]
    return TileType(out_shape, src.dtype, None, view, src.memory_space)


def _squeezed(dims: Sequence[Expr]) -> list[Expr]:
    return [d for d in dims if static_int(d) != 1]


def deduce_reshape(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
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


def deduce_reinterpret_view(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
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


def _axis(op: str, e: Expr, rank: int) -> int:
    a = static_int(e)
    if a is None:
        raise TypeError(f"{op}: axes must be constant integers")
    if not -rank <= a < rank:
        raise ValueError(f"{op}: axis {a} is out of range for a {rank}-D tile")
    return a + rank if a < 0 else a


def deduce_transpose(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tile.transpose"
    src = require_tile(op, args[0], "the source")
    a1, a2 = _axis(op, args[1], len(src.shape)), _axis(op, args[2], len(src.shape))
    if len(args) > 3:
        require_tile(op, args[3], "tmp")
    shape, valid = list(src.shape), list(src.valid_shape)
    shape[a1], shape[a2] = shape[a2], shape[a1]
    valid[a1], valid[a2] = valid[a2], valid[a1]
    view = valid_view(valid, shape, src.memory_space) if is_partial(src) else None
    return TileType(shape, src.dtype, None, view, src.memory_space)


def deduce_transpose_view(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tile.transpose_view"
    src = require_tile(op, args[0], "the source")
    if len(src.shape) < 2:
        raise TypeError(f"{op}: needs at least 2 dims, got {shape_text(src.shape)}")
    shape, valid = list(src.shape), list(src.valid_shape)
    shape[-1], shape[-2] = shape[-2], shape[-1]
    valid[-1], valid[-2] = valid[-2], valid[-1]
    eff = src.effective_view()
    flip = {TileLayout.row_major: TileLayout.col_major, TileLayout.col_major: TileLayout.row_major}
    # OPS.md: blayout and slayout flipped (row <-> col; none_box stays).
    view = eff.with_fields(valid_shape=tuple(valid), blayout=flip.get(eff.blayout, eff.blayout),
                           slayout=flip.get(eff.slayout, eff.slayout))
    return TileType(shape, src.dtype, None, view, src.memory_space)  # type: ignore[arg-type]


def deduce_set_validshape(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tile.set_validshape"
    src = require_tile(op, args[0], "the tile")
    if len(src.shape) != 2:
        raise TypeError(f"{op}: needs a 2-D tile, got {shape_text(src.shape)}")
    extents = []
    for i, (e, what) in enumerate(((args[1], "rows"), (args[2], "cols"))):
        t = require_scalar(op, e, what)
        if not t.dtype.is_int():
            raise TypeError(f"{op}: {what} must be an integer, got {t.dtype.name}")
        v, limit = static_int(e), static_int(src.shape[i])
        if v is not None and (v < 0 or (limit is not None and v > limit)):
            raise ValueError(f"{op}: {what} = {v} is outside 0..{limit} (the tile is {shape_text(src.shape)})")
        extents.append(e)
    view = src.effective_view().with_fields(valid_shape=tuple(extents))
    return TileType(src.shape, src.dtype, None, view, src.memory_space)  # type: ignore[arg-type]


def deduce_assemble(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tile.assemble"
    target = require_tile(op, args[0], "the target")
    source = require_tile(op, args[1], "the source")
    offsets = tuple_elements(args[2])
    if len(offsets) != len(target.shape) or len(source.shape) > len(target.shape):
        raise TypeError(f"{op}: {len(offsets)} offsets and a {len(source.shape)}-D source for a "
                        f"{len(target.shape)}-D target")
    narrowing = source.dtype is DataType.FP32 and target.dtype in (DataType.BF16, DataType.FP16)
    if source.dtype is not target.dtype and not narrowing:
        raise TypeError(f"{op}: the source is {source.dtype.name} but the target is {target.dtype.name} (only an "
                        f"FP32 source may go into a BF16 / FP16 target)")
    for o in offsets:
        if not isinstance(o.type, ScalarType) or not o.type.dtype.is_int():
            raise TypeError(f"{op}: offsets must be integers, got {o.type}")
    check_window(op, "writes", offsets, source.valid_shape, target.shape, "target")
    view = same_view(target, target.shape)
    grown = wunion(target.shape, target.valid_shape, source.valid_shape, offsets)
    if grown is not None:
        view = target.effective_view().with_fields(valid_shape=tuple(grown))  # type: ignore[assignment]
    return TileType(target.shape, target.dtype, None, view, target.memory_space)


def assemble_effects(kwargs: Mapping[str, Any]) -> Mapping[int, Effect]:
    """OPS.md: the target is ReadWrite (the rest of it is kept)."""
    return {0: Effect.READ_WRITE}


OPDEFS = [
    OpDef(
        "tile.slice", deduce_slice,
        args=(ArgSpec("input"), ArgSpec("shape"), ArgSpec("offset"), ArgSpec("valid_shape", optional=True),
              ArgSpec("drop_dims", optional=True)),
        kwargs=(KwargSpec("pad_value", (PadValue,), PadValue.null),),
        output_memory=_INHERIT,
        traits=OpTraits(read_address_args=(2,), shape_describing=True, shape_args=(1, 2, 3), aliases_operand=True),
        doc="A window of a tile (a view; optional valid region, dropped unit dims, pad value).",
    ),
    OpDef(
        "tile.reshape", deduce_reshape,
        args=(ArgSpec("input"), ArgSpec("shape")),
        output_memory=_INHERIT,
        traits=OpTraits(shape_describing=True, shape_args=(1,), aliases_operand=True),
        doc="The same elements with another shape.",
    ),
    OpDef(
        "tile.reinterpret_view", deduce_reinterpret_view,
        args=(ArgSpec("data"), ArgSpec("shape", optional=True)),
        kwargs=(KwargSpec("dtype", (DataType,), required=True),),
        output_memory=_INHERIT,
        traits=OpTraits(shape_describing=True, shape_args=(1,), aliases_operand=True),
        doc="The same bytes read as another dtype (and optionally shape).",
    ),
    OpDef(
        "tile.transpose", deduce_transpose,
        args=(ArgSpec("input"), ArgSpec("axis1"), ArgSpec("axis2"), ArgSpec("tmp", optional=True)),
        lane_invariant={3: LaneCategory.SCRATCH},
        output_memory=_INHERIT,
        traits=OpTraits(swapped_axes_args=(1, 2)),
        doc="Swap two axes (data movement).",
    ),
    OpDef(
        "tile.transpose_view", deduce_transpose_view,
        args=(ArgSpec("input"),),
        output_memory=_INHERIT,
        doc="Swap the last two axes as a view.",
    ),
    OpDef(
        "tile.set_validshape", deduce_set_validshape,
        args=(ArgSpec("tile"), ArgSpec("valid_rows"), ArgSpec("valid_cols")),
        output_memory=_INHERIT,
        doc="The same tile with another valid region.",
    ),
    OpDef(
        "tile.assemble", deduce_assemble,
        args=(ArgSpec("target"), ArgSpec("source"), ArgSpec("offset")),
        kwargs=(KwargSpec("atomic", (int,), 0, choices=(0, 1)),),
        effects=assemble_effects,
        output_memory=_INHERIT,
        traits=OpTraits(shape_args=(2,)),
        doc="Write a tile into a window of another tile.",
    ),
]

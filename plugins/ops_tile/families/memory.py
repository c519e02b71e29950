"""Data movement between tensors and tiles and element access: tile.load / store / move / extract / read /
write, tensor.read / write / dim.

IR layouts (docs/reference/ops.md):
* `tile.load(t, offsets, shapes, valid_shape)` - always 4 operands; kwargs `target_memory` (Vec / Mat;
  absent = chosen by InferTileMemorySpace: the space is deferred and printed `target_memory=None`), `clamp`,
  `cache` (a CachePolicy int: a pl.set_cache_policy of the parameter, docs/passes/outline_incore_scopes.md).
  `pl.tile.load` without target_memory loads into Vec. With N-D offsets and shapes but 2-D valid extents
  (FlattenTileNdTo2D's form) the tile is 2-D: the leading dims merged.
* `tile.store(tile, offsets, out[, shapes])` - kwarg `atomic` (1 = Add) only when set; result: out's type,
  whose valid region grows by the written window.
* `tile.move(tile)` - kwargs `target_memory`, optional `blayout`, `slayout`.
* `tile.extract(src, row, col, shape)` - kwarg `target_memory`.
* `tile.read(tile, indices)` -> Scalar; `tile.write(tile, indices, value)` -> the tile's type in Vec.
* `tensor.read(t, indices)` -> Scalar, `tensor.write(t, indices, value)` (arg 0 Write; returns the tensor's
  type so that it can be rebound), `tensor.dim(t, axis)` -> Scalar[INDEX].

Rules: a load reads only its valid window, clipped to the source's valid region (a window hanging off the
end reads poison there); tile.move keeps the source's shape, valid region and pad and takes the
destination's fractal; a cube destination (Mat, Left, Right, Acc, the scale spaces) takes its implicit layout
(Right with blayout=row_major), a flat one (Vec, Bias) keeps the source's effective blayout / slayout, also an
implicit one (`pl.tile.move(c_acc, target_memory=pl.Mem.Vec)` is `blayout=col_major, slayout=row_major`,
docs/reference/ops.md), explicit blayout= / slayout= override (not into a scale space); tile.extract reads a window of a 2-D tile into the target space's implicit layout;
tile.write writes one element in place (arg 0 ReadWrite: the rest of the tile is kept); a store whose tile,
offsets and target ranks are not all equal (or that has a `shapes` operand) returns the target's type unchanged
and is not bounds-checked by its type rule: on the machine a lower-rank tile that fits a window padded with
leading unit dims writes that window, any other writes its valid region row-major to consecutive row-major
elements of the target from the element the offsets name (past the end: a located error); tile.store requires
the tile's dtype to be the target's, except from Acc (the fixpipe converts), and an atomic add needs FP32 /
BF16 / FP16 / INT32 / INT16 / INT8 elements. A store whose stored extent is 0 on some axis is an error on the
machine: the hardware store asserts a positive valid row count (TSTORE), so an empty lane's store must be
guarded, not executed.

Memory: store reads Vec or Acc, read / write Vec; load, move and extract take any space. The deducers do not
check operand spaces: InferTileMemorySpace places the operands and TileMemoryInferred reports what is
misplaced. tile.move crossing cube <-> vector is MIXED, else the side of its source.

Tile forms: a tile.load / tile.store whose tensor became a tile in the kernel is a tile.slice / tile.assemble;
tensor.read / write / dim of a GM tensor stay (they address GM), of a tile they are tile.read / tile.write /
the tile's extent. 2-D forms: a load keeps its N-D tensor window and gets 2-D valid extents (whole rows); a
store of a flattened tile gets the N-D extents it writes as its `shapes`; read / write linearise their
indices.

Semantics: a load is a snapshot (a later store to the tensor does not change the tile): a read-only numpy view
of the tensor when nothing writes it while the tile can be read (EvalContext.unchanging), else a copy. Stores
write the valid region in place into the caller's tensor. While tasks run concurrently every GM window an op
reads or writes is reported to the GM race check (pypto_core/interp/gm_race.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import AtomicType, CachePolicy, MemorySpace, TensorLayout, TileLayout
from pypto_core.ir.expr import Call, ConstFloat, ConstInt, Expr, MakeTuple
from pypto_core.ir.span import Span
from pypto_core.ir.types import ScalarType, TensorType, TensorView, TileType, TileView, Type, implicit_layout
from pypto_core.ops.build import (
    check_window,
    dims_product,
    dims_sum,
    flat_valid,
    merged_2d,
    require_scalar,
    require_tensor,
    require_tile,
    static_int,
    to_bool,
    to_enum_int,
    to_expr,
    to_tuple,
    tuple_elements,
)
from pypto_core.ops.family import OpFamily
from pypto_core.ops.opdef import ArgSpec, CoreAffinity, Effect, KwargSpec, OpDef, OpTraits, OutputMemory
from pypto_core.ops.registry import create_op_call
from pypto_core.ops.tile_form import TileForm, TileLowering
from pypto_plugins.ops_tile.common.dsl import (
    dispatch_between,
    dsl_named,
    registered,
    scalar_for,
    set_if,
    tile_only,
)
from pypto_plugins.ops_tile.common.flatten import Flatten2DContext, rebuild, tile_type
from pypto_plugins.ops_tile.common.shapes import (
    check_atomic_dtype,
    check_indices,
    tensor_valid,
    with_view_valid,
    wunion,
)
from pypto_plugins.ops_tile.common.views import same_view

family = OpFamily("memory", semantics="pypto_plugins.ops_tile.semantics.memory")

_MEMORY = (MemorySpace,)
_TILE_SPACES = (MemorySpace.Vec, MemorySpace.Mat, MemorySpace.Left, MemorySpace.Right, MemorySpace.Acc,
                MemorySpace.Bias, MemorySpace.LeftScale, MemorySpace.RightScale)
_VEC_TILE = {0: (MemorySpace.Vec,)}  # read / write address one element of a Vec tile


# -- type rules ---------------------------------------------------------------------------------------------
def _readable_valid(requested: Sequence[Expr], offsets: Sequence[Expr], source: Sequence[Expr]) -> list[Expr]:
    """valid = requested clipped to what the source can supply from the offset (static dims only)."""
    out: list[Expr] = []
    for i, req in enumerate(requested):
        r, o = static_int(req), static_int(offsets[i]) if i < len(offsets) else None
        s = static_int(source[i]) if i < len(source) else None
        if r is not None and o is not None and s is not None and o + r > s:
            out.append(type(req)(max(0, s - o), req.type.dtype, req.span))  # type: ignore[call-arg]
        else:
            out.append(req)
    return out


def load_view(shape: Sequence[Expr], valid: Sequence[Expr], target: MemorySpace | None) -> TileView:
    """Mat loads are NZ (col/row) unless one row; Vec loads with last dim 1 are col_major.

    A deferred load (no target yet) takes the shape-implied layout of an unplaced tile."""
    blayout, slayout, fractal = implicit_layout(shape, target)
    rows = static_int(shape[0]) if len(shape) == 2 else None
    if target is MemorySpace.Mat and rows == 1:
        blayout, slayout = TileLayout.row_major, TileLayout.none_box
    if target is MemorySpace.Vec and len(shape) >= 1 and static_int(shape[-1]) == 1:
        blayout = TileLayout.col_major
    return TileView(valid_shape=list(valid), blayout=blayout, slayout=slayout, fractal=fractal)


def deduce_load(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    src = require_tensor("tile.load", args[0], "the source")
    offsets, shape = tuple_elements(args[1]), tuple_elements(args[2])
    valid = tuple_elements(args[3]) if len(args) > 3 else shape
    target = kwargs.get("target_memory")  # absent: deferred to InferTileMemorySpace
    if len(shape) > 2 and len(valid) == 2 and len(offsets) == len(shape) == len(src.shape):
        # FlattenTileNdTo2D's form: an N-D window of the tensor read into a 2-D tile (leading dims merged).
        flat = merged_2d(shape)
        return TileType(flat, src.dtype, None, load_view(flat, list(valid), target), target)
    if not (len(offsets) == len(shape) == len(valid) == len(src.shape)):
        raise TypeError(f"tile.load: offsets ({len(offsets)}-D), shapes ({len(shape)}-D), valid_shape "
                        f"({len(valid)}-D) and the source ({len(src.shape)}-D) must have the same rank")
    # The readable window ends at the source's valid region when it has one.
    valid = _readable_valid(valid, offsets, tensor_valid(src))
    return TileType(shape, src.dtype, None, load_view(shape, valid, target), target)


def deduce_store(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    tile = require_tile("tile.store", args[0], "the stored value")
    out = require_tensor("tile.store", args[2], "the target")
    # An Acc tile converts on the way out (fixpipe); a Vec tile is stored as it is.
    if tile.dtype is not out.dtype and tile.memory_space is not MemorySpace.Acc:
        raise TypeError(f"tile.store: the tile is {tile.dtype.name} but the target is {out.dtype.name}; "
                        f"cast the tile first (pl.cast)")
    offsets = tuple_elements(args[1])
    if len(args) > 3 and len(tuple_elements(args[3])) != len(offsets):
        raise TypeError(f"tile.store: the shapes operand ({len(tuple_elements(args[3]))}-D) and the offsets "
                        f"({len(offsets)}-D) must have the same rank")
    check_atomic_dtype("tile.store", kwargs.get("atomic", 0), out.dtype)
    if len(args) > 3 or not len(tile.shape) == len(offsets) == len(out.shape):
        # A flattened tile's N-D window, or ranks that differ (a row-major flat copy on the machine): the
        # target's type unchanged, no window check.
        return out
    check_window("tile.store", "writes", offsets, tile.valid_shape, out.shape, "target")
    grown = wunion(out.shape, tensor_valid(out), tile.valid_shape, offsets)
    return out if grown is None else with_view_valid(out, grown)


def store_effects(kwargs: Mapping[str, Any]) -> Mapping[int, Effect]:
    atomic = kwargs.get("atomic", 0)
    return {2: Effect.READ_WRITE if int(atomic) == int(AtomicType.Add) else Effect.WRITE}


_SCALE_SPACES = (MemorySpace.LeftScale, MemorySpace.RightScale)


def deduce_move(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    """Shape, valid region and pad of the source; fractal of the destination. Layout: the destination's
    implicit one where it differs from the space-agnostic layout (Mat, Left, Right, Acc, the scale spaces),
    else (Vec, Bias) the source's effective one, implicit or not; Right forces blayout=row_major; the
    blayout / slayout kwargs override (not into a scale space)."""
    src = require_tile("tile.move", args[0], "the source")
    target = kwargs["target_memory"]
    blayout, slayout, fractal = implicit_layout(src.shape, target)
    eff = src.effective_view()
    if (blayout, slayout) == implicit_layout(src.shape, None)[:2]:
        blayout, slayout = eff.blayout, eff.slayout  # a flat space keeps the source's layout
    if target is MemorySpace.Right:
        blayout = TileLayout.row_major
    if target not in _SCALE_SPACES:
        blayout = kwargs.get("blayout", blayout)
        slayout = kwargs.get("slayout", slayout)
    view = TileView(valid_shape=list(src.valid_shape), blayout=blayout, slayout=slayout, fractal=fractal,
                    pad=eff.pad)
    return TileType(src.shape, src.dtype, None, view, target)


def classify_move(call: Call) -> CoreAffinity:
    """Crossing cube <-> vector is MIXED; otherwise the side of the source (docs/plugins.md, OpDef fields)."""
    src = call.args[0].type
    dst = call.kwargs.get("target_memory")
    src_space = getattr(src, "memory_space", None)
    if src_space is None or dst is None:
        return CoreAffinity.SHARED
    if src_space.is_cube() != dst.is_cube():
        return CoreAffinity.MIXED
    return CoreAffinity.CUBE if src_space.is_cube() else CoreAffinity.VECTOR


_LEFT_SLAB = TileView(blayout=TileLayout.row_major, slayout=TileLayout.row_major)


def deduce_extract(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    src = require_tile("tile.extract", args[0], "the source")
    require_scalar("tile.extract", args[1], "the row index")
    require_scalar("tile.extract", args[2], "the column index")
    shape = tuple_elements(args[3])
    if len(src.shape) != 2 or len(shape) != 2:
        raise TypeError(f"tile.extract: the source and the extracted shape must be 2-D, got {len(src.shape)}-D "
                        f"and {len(shape)}-D")
    check_window("tile.extract", "reads", args[1:3], shape, src.shape, "source")
    target = kwargs.get("target_memory", MemorySpace.Vec)
    # The implicit layout of the target, but a Left slab is row-major (docs/reference/ops.md, tile.extract).
    view = _LEFT_SLAB if target is MemorySpace.Left else None
    return TileType(shape, src.dtype, None, view, target)


def deduce_tile_read(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    tile = require_tile("tile.read", args[0], "the operand")
    check_indices("tile.read", args[1], len(tile.shape))
    return ScalarType(tile.dtype)


def deduce_tile_write(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    tile = require_tile("tile.write", args[0], "the operand")
    check_indices("tile.write", args[1], len(tile.shape))
    value = require_scalar("tile.write", args[2], "the value")
    if value.dtype is not tile.dtype and not isinstance(args[2], (ConstInt, ConstFloat)):  # literals convert
        raise TypeError(f"tile.write: the value is {value.dtype.name} but the tile is {tile.dtype.name}")
    return TileType(tile.shape, tile.dtype, None, same_view(tile, tile.shape), MemorySpace.Vec)


def deduce_tensor_read(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    src = require_tensor("tensor.read", args[0], "the operand")
    check_indices("tensor.read", args[1], len(src.shape))
    return ScalarType(src.dtype)


def deduce_tensor_write(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    dst = require_tensor("tensor.write", args[0], "the target")
    check_indices("tensor.write", args[1], len(dst.shape))
    require_scalar("tensor.write", args[2], "the value")
    return dst


def deduce_dim(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    src = require_tensor("tensor.dim", args[0], "the operand")
    axis = static_int(args[1])
    if axis is None or not -len(src.shape) <= axis < len(src.shape):
        raise ValueError(f"tensor.dim: the axis must be a constant in range for a {len(src.shape)}-D tensor")
    return ScalarType(DataType.INDEX)


# -- ops ----------------------------------------------------------------------------------------------------
family.op(OpDef(
    "tile.load", deduce_load,
    args=(ArgSpec("tensor"), ArgSpec("offsets"), ArgSpec("shapes"), ArgSpec("valid_shape", optional=True)),
    kwargs=(KwargSpec("target_memory", _MEMORY, None, choices=(MemorySpace.Vec, MemorySpace.Mat), deferred=True),
            KwargSpec("clamp", (bool,), False),
            # a pl.set_cache_policy of the parameter, set by ConvertTensorToTileOps (docs/passes/outline_incore_scopes.md)
            KwargSpec("cache", (int,), int(CachePolicy.DEFAULT), choices=tuple(int(c) for c in CachePolicy))),
    output_memory=OutputMemory(from_kwarg="target_memory"),
    traits=OpTraits(read_address_args=(1,), shape_args=(1, 2, 3), gm_transfer=True),
    doc="Load a window of a tensor into a tile.",
))
family.op(OpDef(
    "tile.store", deduce_store,
    args=(ArgSpec("tile"), ArgSpec("offsets"), ArgSpec("output_tensor"), ArgSpec("shapes", optional=True)),
    kwargs=(KwargSpec("atomic", (int,), 0, choices=(0, 1)),),
    effects=store_effects,
    input_memory={0: (MemorySpace.Vec, MemorySpace.Acc)},
    traits=OpTraits(shape_args=(1, 3), gm_transfer=True),
    doc="Store a tile into a window of a tensor; returns the (updated) tensor.",
))
family.op(OpDef(
    "tile.move", deduce_move,
    args=(ArgSpec("tile"),),
    kwargs=(KwargSpec("target_memory", _MEMORY, required=True, choices=_TILE_SPACES),
            KwargSpec("blayout", (TileLayout,)), KwargSpec("slayout", (TileLayout,))),
    affinity=classify_move,
    output_memory=OutputMemory(from_kwarg="target_memory"),
    traits=OpTraits(aliases_operand=True),
    doc="Move a tile to another memory space.",
))
family.op(OpDef(
    "tile.extract", deduce_extract,
    args=(ArgSpec("src"), ArgSpec("index_row"), ArgSpec("index_col"), ArgSpec("shape")),
    kwargs=(KwargSpec("target_memory", _MEMORY, MemorySpace.Vec, choices=_TILE_SPACES),),
    output_memory=OutputMemory(from_kwarg="target_memory", kwarg_default=MemorySpace.Vec),
    traits=OpTraits(read_address_args=(1, 2), shape_args=(3,)),
    doc="Extract a window of a tile into another memory space (e.g. Mat -> Left; a Left slab is row-major).",
))
family.op(OpDef(
    "tile.read", deduce_tile_read,
    args=(ArgSpec("tile"), ArgSpec("indices")),
    input_memory=_VEC_TILE,
    traits=OpTraits(shape_args=(1,)),
    doc="Read one element of a tile.",
))
family.op(OpDef(
    "tile.write", deduce_tile_write,
    args=(ArgSpec("tile"), ArgSpec("indices"), ArgSpec("value")),
    effects={0: Effect.READ_WRITE},  # the rest of the tile is kept
    output_memory=OutputMemory(fixed=MemorySpace.Vec),
    input_memory=_VEC_TILE,
    traits=OpTraits(shape_args=(1,)),
    doc="Write one element of a tile in place.",
))
family.op(OpDef("tensor.dim", deduce_dim, args=(ArgSpec("tensor"), ArgSpec("axis")),
                traits=OpTraits(extent_query=True), doc="The extent of one axis."), dsl="tensor.dim")
family.op(OpDef("tensor.read", deduce_tensor_read, args=(ArgSpec("tensor"), ArgSpec("indices")),
                traits=OpTraits(shape_args=(1,)), doc="Read one element."))
family.op(OpDef("tensor.write", deduce_tensor_write, args=(ArgSpec("tensor"), ArgSpec("indices"), ArgSpec("value")),
                effects={0: Effect.WRITE}, traits=OpTraits(shape_args=(1,)), doc="Write one element in place."))


# -- tile forms ---------------------------------------------------------------------------------------------
def lower_load_of_a_tile(ctx: TileLowering, call: Call) -> Expr:
    """A pl.load of a tensor the kernel now computes on chip (a tile): the window of that tile."""
    src, offsets, shapes = call.args[0], call.args[1], call.args[2]
    if ctx.is_gm(src):
        return ctx.call("tile.load", list(call.args), dict(call.kwargs))
    valid = call.args[3] if len(call.args) > 3 else None
    narrowed = valid is not None and not all(
        static_int(v) is not None and static_int(v) == static_int(s)
        for v, s in zip(tuple_elements(valid), tuple_elements(shapes)))
    return ctx.call("tile.slice", [src, shapes, offsets, *([valid] if narrowed else [])])


family.implement("tile_form", "tile.load", TileForm(lower=lower_load_of_a_tile))


def lower_store_into_a_tile(ctx: TileLowering, call: Call) -> Expr:
    """A pl.store into a tensor the kernel now holds on chip (a tile): an assemble into that tile."""
    target = call.args[2]
    if ctx.is_gm(target):
        return ctx.call("tile.store", list(call.args), dict(call.kwargs))
    atomic = call.kwargs.get("atomic", 0)
    return ctx.call("tile.assemble", [target, call.args[0], call.args[1]], {"atomic": atomic} if atomic else {})


family.implement("tile_form", "tile.store", TileForm(lower=lower_store_into_a_tile))


def gm_or_tile(tile_op: str) -> TileForm:
    """read / write: a scalar access of a GM tensor stays; on a tile it is the tile op."""

    def lower_access(ctx: TileLowering, call: Call) -> Expr:
        if ctx.is_gm(call.args[0]):
            return call
        return ctx.call(tile_op, [ctx.tile(call.args[0]), *call.args[1:]], dict(call.kwargs))

    return TileForm(lower=lower_access, gm_access=True)


def lower_tensor_dim(ctx: TileLowering, call: Call) -> Expr:
    """tensor.dim of a GM tensor stays; of a tile it is the tile's extent."""
    if ctx.is_gm(call.args[0]):
        return call
    t = ctx.tile(call.args[0]).type
    assert isinstance(t, TileType)
    axis = static_int(call.args[1])
    assert axis is not None  # tensor.dim's deducer checked it
    return t.shape[axis % len(t.shape)]


family.implement("tile_form", "tensor.read", gm_or_tile("tile.read"))
family.implement("tile_form", "tensor.write", gm_or_tile("tile.write"))
family.implement("tile_form", "tensor.dim", TileForm(lower=lower_tensor_dim, gm_access=True))


# -- 2-D forms ----------------------------------------------------------------------------------------------
@family.implements("flatten_2d", "tile.load")
def flatten_load(call: Call, args: Sequence[Expr], ctx: Flatten2DContext) -> Call:
    """The N-D tensor window stays (offsets, shapes); the valid extents become the merged 2-D ones (whole rows,
    or a row-major prefix of them); a natural NZ Mat load reads a 2-D view of its tensor instead."""
    t = tile_type(call)
    if len(t.shape) <= 2:
        return rebuild(call, args)
    view = None if t.tile_view is None else t.tile_view.with_fields(valid_shape=flat_valid(t.shape, t.valid_shape))
    flat = TileType(merged_2d(t.shape), t.dtype, None, view, t.memory_space)
    effective = flat.effective_view()
    if t.memory_space is MemorySpace.Mat and effective.blayout is TileLayout.col_major \
            and effective.slayout is TileLayout.row_major:
        return _natural_nz_load(call, args, flat, ctx)
    # PyPTO keeps the N-D valid extents and types the call explicitly; here the 2-D valid extents carry the
    # flattening, so every pass that re-deduces the call keeps it (docs/passes/flatten_tile_nd_to_2d.md).
    return rebuild(call, [*args[:3], MakeTuple(list(flat.valid_shape))])


def _natural_nz_load(call: Call, args: Sequence[Expr], flat: TileType, ctx: Flatten2DContext) -> Call:
    """A natural NZ Mat load reads a 2-D view of its tensor: `<var>_view2d = tensor.view(src, [rows, last])`
    (row-major strides, ND), then a 2-D load at row `(o0*d1 + o1)*d2 + ...` of the view."""
    src = args[0]
    tensor = src.type
    dims = list(tensor.shape)
    offsets, shapes = tuple_elements(args[1]), tuple_elements(args[2])
    valid = tuple_elements(args[3]) if len(args) > 3 else shapes
    view_dims = merged_2d(dims)
    stride = [dims[-1], ConstInt(1)]
    view_call = create_op_call("tensor.view", [src, MakeTuple(view_dims)], span=call.span)
    view_call = view_call.with_fields(type=TensorType(view_dims, tensor.dtype, None,  # type: ignore[assignment]
                                                      TensorView(stride=stride, layout=TensorLayout.ND)))
    view2d = ctx.bind(view_call, f"{ctx.result_name('load')}_view2d")
    row: Expr = offsets[0]
    for o, d in zip(offsets[1:-1], dims[1:-1]):
        row = dims_sum([dims_product([row, d]), o])
    flat_args = [view2d, MakeTuple([row, offsets[-1]]), MakeTuple(merged_2d(list(shapes))),
                 MakeTuple(flat_valid(list(shapes), list(valid)))]
    new = create_op_call(call.op.name, flat_args, dict(call.kwargs), span=call.span)
    return new.with_fields(type=flat, attrs=call.attrs)  # type: ignore[return-value]


@family.implements("flatten_2d", "tile.store")
def flatten_store(call: Call, args: Sequence[Expr], ctx: Flatten2DContext) -> Call:
    """Into an N-D tensor, a 4th operand: the partition the tile covers, `[1, ...] + the tile's own static
    shape` (the machine writes its valid part). Stores into 2-D tensors, and stores that already have one,
    stay as they are."""
    src, out = tile_type(call.args[0]), call.args[2].type
    if len(args) > 3 or len(out.shape) <= 2 or len(src.shape) > len(out.shape) or any(
            static_int(t) is None or (static_int(d) is not None and static_int(t) > static_int(d))
            for t, d in zip(src.shape, out.shape[len(out.shape) - len(src.shape):])):
        return rebuild(call, args)  # a lower-rank tile that does not fit the trailing dims: a row-major copy
    partition = [ConstInt(1)] * (len(out.shape) - len(src.shape)) + list(src.shape)
    return rebuild(call, [*args[:3], MakeTuple(partition)])


@family.implements("flatten_2d", "tile.read", "tile.write")
def flatten_indices(call: Call, args: Sequence[Expr], ctx: Flatten2DContext) -> Call:
    """The N-D indices linearised: row i0 * d1 * ... * d(k-1) + ... + i(k-1), column ik."""
    src = tile_type(call.args[0])
    if len(src.shape) <= 2:
        return rebuild(call, args)
    index = tuple_elements(args[1])
    row = dims_sum([dims_product([e, *src.shape[i + 1:-1]]) for i, e in enumerate(index[:-1])])
    new = list(args)
    new[1] = MakeTuple([row, index[-1]])
    return rebuild(call, new)


# -- DSL ----------------------------------------------------------------------------------------------------
@family.dsl("tile.load")
@dsl_named("load")
def tile_load(tensor: Expr, offsets: Any, shapes: Any, valid_shape: Any = None,
              target_memory: MemorySpace | None = MemorySpace.Vec, clamp: Any = False, span: Span | None = None, *,
              cache: Any = None) -> Call:
    """`tile.load` always carries four operands: valid_shape defaults to shapes. An unwritten target_memory is
    Vec (PyPTO's default); `target_memory=None` defers the choice to InferTileMemorySpace (printed so)."""
    shape_t = to_tuple(shapes, span)
    valid_t = shape_t if valid_shape is None else to_tuple(valid_shape, span)
    kwargs: dict[str, Any] = {} if target_memory is None else {"target_memory": target_memory}
    if to_bool(clamp, "clamp"):
        kwargs["clamp"] = True
    if cache is not None:  # a pl.set_cache_policy, as ConvertTensorToTileOps writes it
        kwargs["cache"] = to_enum_int(cache, CachePolicy, "cache")
    return create_op_call("tile.load", [tensor, to_tuple(offsets, span), shape_t, valid_t], kwargs, span=span)


@family.dsl("tile.store")
@dsl_named("store")
def tile_store(tile: Expr, offsets: Any, output_tensor: Expr, shapes: Any = None, span: Span | None = None, *,
               atomic: Any = AtomicType.None_) -> Call:
    """An IR-builder call may pass the span fifth (`T.store(tile, offsets, out, None, span)`)."""
    args = [tile, to_tuple(offsets, span), output_tensor]
    if shapes is not None:
        args.append(to_tuple(shapes, span))
    kwargs: dict[str, Any] = {}
    set_if(kwargs, "atomic", to_enum_int(atomic, AtomicType, "atomic"), 0)
    return create_op_call("tile.store", args, kwargs, span=span)


@family.dsl("tile.move")
@dsl_named("move")
def tile_move(tile: Expr, target_memory: MemorySpace, blayout: TileLayout | None = None,
              slayout: TileLayout | None = None, span: Span | None = None) -> Call:
    kwargs: dict[str, Any] = {"target_memory": target_memory}
    set_if(kwargs, "blayout", blayout)
    set_if(kwargs, "slayout", slayout)
    return create_op_call("tile.move", [tile], kwargs, span=span)


@family.dsl("tile.extract")
@dsl_named("extract")
def tile_extract(src: Expr, index_row: Any, index_col: Any, shape: Any, span: Span | None = None, *,
                 target_memory: MemorySpace) -> Call:
    """target_memory is always recorded (and printed), Vec included."""
    args = [src, to_expr(index_row, span), to_expr(index_col, span), to_tuple(shape, span)]
    return create_op_call("tile.extract", args, {"target_memory": target_memory}, span=span)


@family.dsl("tile.read")
@dsl_named("read")
def tile_read(tile: Expr, indices: Any, span: Span | None = None) -> Call:
    return create_op_call("tile.read", [tile, to_tuple(indices, span)], span=span)


@family.dsl("tile.write")
@dsl_named("write")
def tile_write(tile: Expr, indices: Any, value: Any, span: Span | None = None) -> Call:
    return create_op_call("tile.write", [tile, to_tuple(indices, span), scalar_for(value, tile, span)], span=span)


@family.dsl("tensor.read")
@dsl_named("read")
def tensor_read(tensor: Expr, indices: Any, span: Span | None = None) -> Call:
    return create_op_call("tensor.read", [tensor, to_tuple(indices, span)], span=span)


@family.dsl("tensor.write")
@dsl_named("write")
def tensor_write(tensor: Expr, indices: Any, value: Any, span: Span | None = None) -> Call:
    return create_op_call("tensor.write", [tensor, to_tuple(indices, span), scalar_for(value, tensor, span)],
                          span=span)


family.dsl_function("load", tile_load)  # its first operand is the source tensor
family.dsl_function("dim", registered("tensor.dim"))
for _name, _fn in (("store", tile_store), ("move", tile_move), ("extract", tile_extract)):
    family.dsl_function(_name, tile_only(_name, _fn))
family.dsl_function("read", dispatch_between("read", tile_read, tensor_read))
family.dsl_function("write", dispatch_between("write", tile_write, tensor_write))


# -- what CanonicalizeTileSlice asks (docs/plugins.md, op interfaces) ------------------------------------------
def extract_window(call: Call) -> tuple[Expr, Expr, Expr]:
    """(source, row, col) of tile.extract."""
    return call.args[0], call.args[1], call.args[2]


def rebase_extract(call: Call, source: Expr, row: Expr, col: Expr) -> Call:
    """The same extract from `source` at (row, col)."""
    new = create_op_call("tile.extract", [source, row, col, call.args[3]], dict(call.kwargs), span=call.span)
    return new.with_fields(attrs=dict(call.attrs)) if call.attrs else new


family.implement("window_copy", "tile.extract", {"window": extract_window, "rebase": rebase_extract})


# Memory planning facts (docs/memory_planning.md): where a result's buffer lives, which operands it must not share.
family.set_traits("tile.store", output_reuses_input=2, writes_window=(2, 0, 1))
family.set_traits("tile.move", "tile.extract", output_must_not_alias="all")

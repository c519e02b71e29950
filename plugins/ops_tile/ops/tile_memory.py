"""Data movement between tensors and tiles: tile.load / store / move / extract / read / write.

IR layouts (docs/reference/ops.md):
* `tile.load(t, offsets, shapes, valid_shape)` - always 4 args; kwargs `target_memory` (Vec/Mat; absent =
  chosen by InferTileMemorySpace), `clamp`, `cache` (a CachePolicy int, docs/passes/outline_incore_scopes.md). With N-D offsets and
  shapes but 2-D valid extents (FlattenTileNdTo2D's form) the tile is 2-D: the leading dims merged.
  Without `target_memory` the space is deferred: the result has none until InferTileMemorySpace
  picks one (printed `target_memory=None`, KwargSpec.deferred).
* `tile.store(tile, offsets, out[, shapes])` - kwarg `atomic` (1 = Add) only when set; result: out's type.
* `tile.move(tile)` - kwargs `target_memory`, optional `blayout`, `slayout`.
* `tile.extract(src, row, col, shape)` - kwarg `target_memory`.
* `tile.read(tile, indices)` -> Scalar; `tile.write(tile, indices, value)` -> the tile's type.

Choices of pypto's own, where PyPTO's documents are silent:
* tile.move to Vec keeps the blayout/slayout of a source that carries a view (docs/passes/lower_auto_vector_split.md, example: a Mat
  tile with a valid region moved to Vec prints `blayout=col_major, slayout=row_major`); a source
  with the implicit view, and any cube target, take the target's implicit layout.
* tile.extract reads a window of a tile; its result takes the target space's implicit layout.
* tile.write writes one element in place: arg 0 is ReadWrite (OPS.md), the result is the tile's type in Vec.
* tile.store requires the tile's dtype to be the target's, except from Acc (the fixpipe converts).

Memory (OPS.md `mem:` lines): store reads Vec or Acc, read / write Vec; load, move and extract take
any space. The deducers do not check operand spaces: InferTileMemorySpace places the operands and
TileMemoryInferred reports what is misplaced.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pypto_core.ir.enums import AtomicType, CachePolicy, MemorySpace, TileLayout
from pypto_core.ir.expr import Call, ConstFloat, ConstInt, Expr
from pypto_core.ir.types import ScalarType, TensorType, TileType, TileView, Type, implicit_layout
from pypto_core.ops.build import (
    check_window,
    merged_2d,
    require_scalar,
    require_tensor,
    require_tile,
    static_int,
    tuple_elements,
)
from pypto_core.ops.opdef import (
    ArgSpec,
    CoreAffinity,
    Effect,
    KwargSpec,
    OpDef,
    OpTraits,
    OutputMemory,
)
from pypto_plugins.ops_tile.ops.shapes import check_atomic_dtype, check_indices, wunion
from pypto_plugins.ops_tile.ops.tensor_views import with_view_valid
from pypto_plugins.ops_tile.ops.views import same_view

_MEMORY = (MemorySpace,)
_TILE_SPACES = (MemorySpace.Vec, MemorySpace.Mat, MemorySpace.Left, MemorySpace.Right, MemorySpace.Acc,
                MemorySpace.Bias, MemorySpace.LeftScale, MemorySpace.RightScale)
_VEC_TILE = {0: (MemorySpace.Vec,)}  # read / write address one element of a Vec tile


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
    window = src.tensor_view.valid_shape if src.tensor_view is not None and src.tensor_view.valid_shape \
        else src.shape
    valid = _readable_valid(valid, offsets, window)
    return TileType(shape, src.dtype, None, load_view(shape, valid, target), target)


def deduce_store(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    tile = require_tile("tile.store", args[0], "the stored value")
    out = require_tensor("tile.store", args[2], "the target")
    # An Acc tile converts on the way out (fixpipe); a Vec tile is stored as it is.
    if tile.dtype is not out.dtype and tile.memory_space is not MemorySpace.Acc:
        raise TypeError(f"tile.store: the tile is {tile.dtype.name} but the target is {out.dtype.name}; "
                        f"cast the tile first (pl.cast)")
    offsets = tuple_elements(args[1])
    if len(offsets) != len(out.shape):
        raise TypeError(f"tile.store: {len(offsets)} offsets for a {len(out.shape)}-D target")
    extents = tuple_elements(args[3]) if len(args) > 3 else tile.valid_shape
    if len(extents) > len(out.shape):
        raise TypeError(f"tile.store: a {len(extents)}-D window does not fit a {len(out.shape)}-D target")
    check_window("tile.store", "writes", offsets, extents, out.shape, "target")
    check_atomic_dtype("tile.store", kwargs.get("atomic", 0), out.dtype)
    grown = None if len(args) > 3 else wunion(out.shape, _tensor_valid(out), tile.valid_shape, offsets)
    return out if grown is None else with_view_valid(out, grown)


def _tensor_valid(t: TensorType) -> Sequence[Expr]:
    return t.tensor_view.valid_shape if t.tensor_view is not None and t.tensor_view.valid_shape else t.shape


def store_effects(kwargs: Mapping[str, Any]) -> Mapping[int, Effect]:
    atomic = kwargs.get("atomic", 0)
    return {2: Effect.READ_WRITE if int(atomic) == int(AtomicType.Add) else Effect.WRITE}


def deduce_move(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    src = require_tile("tile.move", args[0], "the source")
    target = kwargs["target_memory"]
    blayout, slayout, fractal = implicit_layout(src.shape, target)
    if target is MemorySpace.Right:
        blayout = TileLayout.row_major
    elif target is MemorySpace.Vec and src.tile_view is not None:
        view = src.effective_view()
        blayout, slayout = view.blayout, view.slayout
    blayout = kwargs.get("blayout", blayout)
    slayout = kwargs.get("slayout", slayout)
    view = TileView(valid_shape=list(src.valid_shape), blayout=blayout, slayout=slayout, fractal=fractal)
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


def deduce_extract(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    src = require_tile("tile.extract", args[0], "the source")
    require_scalar("tile.extract", args[1], "the row index")
    require_scalar("tile.extract", args[2], "the column index")
    shape = tuple_elements(args[3])
    if len(src.shape) != 2 or len(shape) != 2:
        raise TypeError(f"tile.extract: the source and the extracted shape must be 2-D, got {len(src.shape)}-D "
                        f"and {len(shape)}-D")
    check_window("tile.extract", "reads", args[1:3], shape, src.shape, "source")
    return TileType(shape, src.dtype, None, None, kwargs.get("target_memory", MemorySpace.Vec))


def deduce_read(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    tile = require_tile("tile.read", args[0], "the operand")
    check_indices("tile.read", args[1], len(tile.shape))
    return ScalarType(tile.dtype)


def deduce_write(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    tile = require_tile("tile.write", args[0], "the operand")
    check_indices("tile.write", args[1], len(tile.shape))
    value = require_scalar("tile.write", args[2], "the value")
    if value.dtype is not tile.dtype and not isinstance(args[2], (ConstInt, ConstFloat)):  # literals convert
        raise TypeError(f"tile.write: the value is {value.dtype.name} but the tile is {tile.dtype.name}")
    return TileType(tile.shape, tile.dtype, None, same_view(tile, tile.shape), MemorySpace.Vec)


OPDEFS = [
    OpDef(
        "tile.load", deduce_load,
        args=(ArgSpec("tensor"), ArgSpec("offsets"), ArgSpec("shapes"), ArgSpec("valid_shape", optional=True)),
        kwargs=(KwargSpec("target_memory", _MEMORY, None, choices=(MemorySpace.Vec, MemorySpace.Mat), deferred=True),
                KwargSpec("clamp", (bool,), False),
                # docs/passes/outline_incore_scopes.md: a pl.set_cache_policy of the parameter, set by ConvertTensorToTileOps.
                KwargSpec("cache", (int,), int(CachePolicy.DEFAULT), choices=tuple(int(c) for c in CachePolicy))),
        output_memory=OutputMemory(from_kwarg="target_memory"),
        traits=OpTraits(read_address_args=(1,), shape_args=(1, 2, 3), gm_transfer=True),
        doc="Load a window of a tensor into a tile.",
    ),
    OpDef(
        "tile.store", deduce_store,
        args=(ArgSpec("tile"), ArgSpec("offsets"), ArgSpec("output_tensor"), ArgSpec("shapes", optional=True)),
        kwargs=(KwargSpec("atomic", (int,), 0, choices=(0, 1)),),
        effects=store_effects,
        input_memory={0: (MemorySpace.Vec, MemorySpace.Acc)},
        traits=OpTraits(shape_args=(1, 3), gm_transfer=True),
        doc="Store a tile into a window of a tensor; returns the (updated) tensor.",
    ),
    OpDef(
        "tile.move", deduce_move,
        args=(ArgSpec("tile"),),
        kwargs=(KwargSpec("target_memory", _MEMORY, required=True, choices=_TILE_SPACES),
                KwargSpec("blayout", (TileLayout,)), KwargSpec("slayout", (TileLayout,))),
        affinity=classify_move,
        output_memory=OutputMemory(from_kwarg="target_memory"),
        traits=OpTraits(aliases_operand=True),
        doc="Move a tile to another memory space.",
    ),
    OpDef(
        "tile.extract", deduce_extract,
        args=(ArgSpec("src"), ArgSpec("index_row"), ArgSpec("index_col"), ArgSpec("shape")),
        kwargs=(KwargSpec("target_memory", _MEMORY, MemorySpace.Vec, choices=_TILE_SPACES),),
        output_memory=OutputMemory(from_kwarg="target_memory", kwarg_default=MemorySpace.Vec),
        traits=OpTraits(read_address_args=(1, 2), shape_args=(3,)),
        doc="Extract a window of a tile into another memory space (e.g. Mat -> Left).",
    ),
    OpDef(
        "tile.read", deduce_read,
        args=(ArgSpec("tile"), ArgSpec("indices")),
        input_memory=_VEC_TILE,
        traits=OpTraits(shape_args=(1,)),
        doc="Read one element of a tile.",
    ),
    OpDef(
        "tile.write", deduce_write,
        args=(ArgSpec("tile"), ArgSpec("indices"), ArgSpec("value")),
        effects={0: Effect.READ_WRITE},  # OPS.md: the rest of the tile is kept
        output_memory=OutputMemory(fixed=MemorySpace.Vec),
        input_memory=_VEC_TILE,
        traits=OpTraits(shape_args=(1,)),
        doc="Write one element of a tile in place.",
    ),
]

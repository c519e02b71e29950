"""tile.load / tile.store / tile.move / tile.create / tile.full (API.md 3.3)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import AtomicType, MemorySpace, TileLayout
from pypto_core.ir.expr import Call, Expr
from pypto_core.ir.types import TensorType, TileType, TileView, Type, implicit_layout
from pypto_core.ops.build import element_dtype, shape_text, static_int, tuple_elements
from pypto_core.ops.opdef import (
    ArgSpec,
    CoreAffinity,
    Effect,
    KwargSpec,
    OpDef,
    OpTraits,
    OutputMemory,
)


def _require_tensor(op: str, e: Expr, what: str) -> TensorType:
    if not isinstance(e.type, TensorType):
        raise TypeError(f"{op}: {what} must be a tensor, got {e.type}")
    return e.type


def _require_tile(op: str, e: Expr, what: str) -> TileType:
    if not isinstance(e.type, TileType):
        raise TypeError(f"{op}: {what} must be a tile, got {e.type}")
    return e.type


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


def load_view(shape: Sequence[Expr], valid: Sequence[Expr], target: MemorySpace) -> TileView:
    """Mat loads are NZ (col/row) unless one row; Vec loads with last dim 1 are col_major."""
    blayout, slayout, fractal = implicit_layout(shape, target)
    rows = static_int(shape[0]) if len(shape) == 2 else None
    if target is MemorySpace.Mat and rows == 1:
        blayout, slayout = TileLayout.row_major, TileLayout.none_box
    if target is MemorySpace.Vec and len(shape) >= 1 and static_int(shape[-1]) == 1:
        blayout = TileLayout.col_major
    return TileView(valid_shape=list(valid), blayout=blayout, slayout=slayout, fractal=fractal)


def deduce_load(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    src = _require_tensor("tile.load", args[0], "the source")
    offsets, shape = tuple_elements(args[1]), tuple_elements(args[2])
    valid = tuple_elements(args[3]) if len(args) > 3 else shape
    if len(offsets) != len(shape) or len(shape) != len(src.shape):
        raise TypeError(f"tile.load: offsets {len(offsets)}-D, shape {len(shape)}-D and source "
                        f"{len(src.shape)}-D must have the same rank")
    target = kwargs.get("target_memory", MemorySpace.Vec)
    valid = _readable_valid(valid, offsets, src.shape)
    return TileType(shape, src.dtype, None, load_view(shape, valid, target), target)


def deduce_store(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    tile = _require_tile("tile.store", args[0], "the stored value")
    out = _require_tensor("tile.store", args[2], "the target")
    if tile.memory_space not in (None, MemorySpace.Vec, MemorySpace.Acc):
        raise TypeError(f"tile.store: the stored tile must be in Vec or Acc, got {tile.memory_space.name}")
    offsets = tuple_elements(args[1])
    if len(offsets) != len(out.shape):
        raise TypeError(f"tile.store: {len(offsets)} offsets for a {len(out.shape)}-D target")
    extents = tuple_elements(args[3]) if len(args) > 3 else tile.valid_shape
    lead = len(out.shape) - len(extents)
    for dim, off in enumerate(offsets):
        ext = extents[dim - lead] if dim >= lead else None
        o, e, limit = static_int(off), static_int(ext), static_int(out.shape[dim])
        if o is not None and e is not None and limit is not None and o + e > limit:
            raise ValueError(f"tile.store writes past the end of dimension {dim}: offset {o} + extent {e} "
                             f"exceeds the target extent {limit} of {shape_text(out.shape)}")
    return out


def store_effects(kwargs: Mapping[str, Any]) -> Mapping[int, Effect]:
    atomic = kwargs.get("atomic", 0)
    return {2: Effect.READ_WRITE if int(atomic) == int(AtomicType.Add) else Effect.WRITE}


def deduce_move(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    src = _require_tile("tile.move", args[0], "the source")
    target = kwargs["target_memory"]
    blayout, slayout, fractal = implicit_layout(src.shape, target)
    if target is MemorySpace.Right:
        blayout = TileLayout.row_major
    blayout = kwargs.get("blayout", blayout)
    slayout = kwargs.get("slayout", slayout)
    valid = src.tile_view.valid_shape if src.tile_view is not None else ()
    view = TileView(valid_shape=list(valid), blayout=blayout, slayout=slayout, fractal=fractal)
    return TileType(src.shape, src.dtype, None, view, target)


def classify_move(call: Call) -> CoreAffinity:
    """Crossing cube <-> vector is MIXED; otherwise the side of the source (API.md 3.1 rule 2)."""
    src = call.args[0].type
    dst = call.kwargs.get("target_memory")
    src_space = getattr(src, "memory_space", None)
    if src_space is None or dst is None:
        return CoreAffinity.SHARED
    if src_space.is_cube() != dst.is_cube():
        return CoreAffinity.MIXED
    return CoreAffinity.CUBE if src_space.is_cube() else CoreAffinity.VECTOR


def deduce_create(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    shape = tuple_elements(args[0])
    return TileType(shape, kwargs["dtype"], None, None, kwargs.get("target_memory", MemorySpace.Vec))


def deduce_full(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    shape = tuple_elements(args[0])
    element_dtype(args[1].type)
    return TileType(shape, kwargs["dtype"], None, None, MemorySpace.Vec)


_MEMORY = (MemorySpace,)

OPDEFS = [
    OpDef(
        "tile.load", deduce_load,
        args=(ArgSpec("tensor"), ArgSpec("offsets"), ArgSpec("shapes"), ArgSpec("valid_shape", optional=True)),
        kwargs=(KwargSpec("target_memory", _MEMORY, MemorySpace.Vec, choices=(MemorySpace.Vec, MemorySpace.Mat)),
                KwargSpec("clamp", (bool,), False), KwargSpec("cache", (int,), 0)),
        output_memory=OutputMemory(from_kwarg="target_memory", kwarg_default=MemorySpace.Vec),
        traits=OpTraits(read_address_args=(1,), shape_args=(1, 2, 3)),
        doc="Load a window of a tensor into a tile.",
    ),
    OpDef(
        "tile.store", deduce_store,
        args=(ArgSpec("tile"), ArgSpec("offsets"), ArgSpec("output_tensor"), ArgSpec("shapes", optional=True)),
        kwargs=(KwargSpec("atomic", (int,), 0, choices=(0, 1)),),
        effects=store_effects,
        traits=OpTraits(shape_args=(1, 3)),
        doc="Store a tile into a window of a tensor; returns the (updated) tensor.",
    ),
    OpDef(
        "tile.move", deduce_move,
        args=(ArgSpec("tile"),),
        kwargs=(KwargSpec("target_memory", _MEMORY, required=True), KwargSpec("blayout", (TileLayout,)),
                KwargSpec("slayout", (TileLayout,))),
        affinity=classify_move,
        output_memory=OutputMemory(from_kwarg="target_memory"),
        doc="Move a tile to another memory space.",
    ),
    OpDef(
        "tile.create", deduce_create,
        args=(ArgSpec("shape"),),
        kwargs=(KwargSpec("dtype", (DataType,), required=True),
                KwargSpec("target_memory", _MEMORY, MemorySpace.Vec),
                KwargSpec("transpose", (bool,), False), KwargSpec("flat_layout", (bool,), False)),
        affinity=CoreAffinity.SHARED,
        output_memory=OutputMemory(from_kwarg="target_memory", kwarg_default=MemorySpace.Vec),
        traits=OpTraits(pure_generator=True, shape_describing=True, shape_args=(0,)),
        doc="Allocate an uninitialised tile.",
    ),
    OpDef(
        "tile.full", deduce_full,
        args=(ArgSpec("shape"), ArgSpec("value")),
        kwargs=(KwargSpec("dtype", (DataType,), required=True),),
        output_memory=OutputMemory(fixed=MemorySpace.Vec),
        traits=OpTraits(pure_generator=True, shape_describing=True, shape_args=(0,)),
        doc="A tile filled with one value.",
    ),
]

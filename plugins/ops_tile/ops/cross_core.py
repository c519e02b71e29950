"""Lane and cross-core ops: subblock/block index, the AIV split boundaries, tpush / tpop / tfree.

IR layouts (docs/dsl.md, splitting vector work):
* `tile.get_subblock_idx()` / `tile.get_block_idx()` -> Scalar[INDEX].
* `tile.aiv_shard(x)` kwargs `split` (SplitMode int 0/1/2), optional `lane_stride`; `tile.aic_gather(x)`
  kwarg `split`; `tensor.aiv_shard(t)` / `tensor.aic_gather(t)` kwarg `split`.
* `tile.tpush_to_aiv(x)` / `tile.tpush_to_aic(x)` kwargs `split` (pto-isa code 0..4), `lane_stride`, `id`.
* `tile.tpop_from_aic()` / `tile.tpop_from_aiv()` kwargs `split`, `lane_stride`, `id`, `shape`, `dtype`.
* `system.tfree_to_aic(x)` / `system.tfree_to_aiv(x)` kwargs `split`, `id`.

aiv_shard halves the split axis ((n + 1) // 2, dynamic n // 2) and ceil-halves a static valid extent (a
runtime one gives the whole lane box: the consumers carry each lane's extent),
lands in Vec, keeps no layout; aic_gather doubles it and lands in Mat (docs/passes/lower_auto_vector_split.md: the consumer lane's
space). Both check the boundary valid-region contract (docs/passes/lower_auto_vector_split.md, lane extents):
a runtime column extent, a narrowed column on the LEFT_RIGHT split axis, and rows narrowed per lane
together with narrowed columns are rejected. Hand-written tpush_to_aiv carries the same check.

Choices of pypto's own, where PyPTO's documents are silent: aic_gather doubles a partial valid extent on the split axis (both
lanes carry the operand's extent; the pass retypes localized gathers exactly); lane_stride must be
positive and at most the lane box; a pop with `shape` and `dtype` kwargs gets a TileType (Vec from
the AIC, Mat from the AIV), otherwise UnknownType until an annotation gives it one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import MemorySpace
from pypto_core.ir.expr import Expr
from pypto_core.ir.types import ScalarType, TensorType, TensorView, TileType, Type, UnknownType, dims_equal
from pypto_core.ops.build import (
    ceil_half,
    ceil_half_extent,
    doubled,
    require_rank,
    require_tensor,
    require_tile,
    same_dim,
    shape_text,
    static_int,
)
from pypto_core.ops.opdef import (
    ArgSpec,
    CoreAffinity,
    CrossCoreRole,
    KwargSpec,
    OpDef,
    OpTraits,
    OutputMemory,
)
from pypto_plugins.ops_tile.ops.tensor_views import tensor_valid
from pypto_plugins.ops_tile.ops.views import valid_view

_SPLIT_MODES = (0, 1, 2)
_SPLIT_CODES = (0, 1, 2, 3, 4)


def _split_axis_of_code(code: int) -> int | None:
    """pto-isa split code -> axis: 1/3 up-down (rows), 2/4 left-right (cols), 0 none."""
    return None if code == 0 else (0 if code in (1, 3) else 1)


def check_boundary_valid(op: str, shape: Sequence[Expr], valid: Sequence[Expr], axis: int | None) -> None:
    """The valid region a C->V boundary can carry (docs/passes/lower_auto_vector_split.md, lane extents). With split code 0 nothing
    is cut: the whole tile crosses with the valid region it has, static or runtime."""
    if len(shape) != 2 or axis is None:
        return
    rows_narrow = not same_dim(valid[0], shape[0])
    cols_narrow = not same_dim(valid[1], shape[1])
    if cols_narrow and static_int(valid[1]) is None:
        raise ValueError(f"{op}: a runtime valid column extent cannot cross the cube/vector boundary (the "
                         f"FIFO transfers whole columns); pad the columns to {shape_text(shape)} or make the "
                         f"extent static")
    if cols_narrow and axis == 1:
        raise ValueError(f"{op}: the valid columns ({shape_text(valid)} of {shape_text(shape)}) are narrowed on "
                         f"the LEFT_RIGHT split axis, which no transfer can carry per lane; pad the columns or "
                         f"split UP_DOWN")
    if cols_narrow and rows_narrow and axis == 0:
        raise ValueError(f"{op}: rows narrowed per lane together with narrowed columns ({shape_text(valid)} of "
                         f"{shape_text(shape)}) cannot cross the boundary; pad one of them")


def _split_mode(op: str, kwargs: Mapping[str, Any], rank: int) -> int | None:
    split = kwargs["split"]
    if split == 0:
        return None
    if rank != 2:
        raise TypeError(f"{op}: split={split} needs a 2-D operand, got {rank}-D")
    return split - 1


def _halved(shape: Sequence[Expr], valid: Sequence[Expr], axis: int) -> tuple[list[Expr], list[Expr]]:
    new_shape, new_valid = list(shape), list(valid)
    new_shape[axis] = ceil_half(shape[axis])
    # A runtime valid extent on the split axis: no split code fits every value, so the boundary moves the
    # whole lane box and the consumers carry the lane's extent (docs/passes/lower_auto_vector_split.md, lane extents).
    runtime = static_int(valid[axis]) is None and static_int(shape[axis]) is not None
    full = same_dim(valid[axis], shape[axis]) or runtime
    new_valid[axis] = new_shape[axis] if full else ceil_half_extent(valid[axis])
    return new_shape, new_valid


def _doubled(shape: Sequence[Expr], valid: Sequence[Expr], axis: int) -> tuple[list[Expr], list[Expr]]:
    new_shape, new_valid = list(shape), list(valid)
    new_shape[axis] = doubled(shape[axis])
    new_valid[axis] = new_shape[axis] if same_dim(valid[axis], shape[axis]) else doubled(valid[axis])
    return new_shape, new_valid


def deduce_tile_aiv_shard(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tile.aiv_shard"
    src = require_tile(op, args[0], "the operand")
    axis = _split_mode(op, kwargs, len(src.shape))
    check_boundary_valid(op, src.shape, src.valid_shape, axis)
    shape, valid = list(src.shape), list(src.valid_shape)
    if axis is not None:
        shape, valid = _halved(shape, valid, axis)
    stride = kwargs.get("lane_stride")
    if stride is not None:
        box = static_int(shape[axis]) if axis is not None else None
        if axis is None or stride <= 0 or (box is not None and stride > box):
            raise ValueError(f"{op}: lane_stride={stride} needs split=1/2 and 1 <= lane_stride <= the lane box "
                             f"{box}")
    # The space is left to the registry's output-memory rule (docs/passes/lower_auto_vector_split.md: OpRegistry::Create fills it).
    return TileType(shape, src.dtype, None, valid_view(valid, shape, MemorySpace.Vec), None)


def deduce_tile_aic_gather(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tile.aic_gather"
    src = require_tile(op, args[0], "the operand")
    axis = _split_mode(op, kwargs, len(src.shape))
    shape, valid = list(src.shape), list(src.valid_shape)
    if axis is not None:
        shape, valid = _doubled(shape, valid, axis)
    return TileType(shape, src.dtype, None, valid_view(valid, shape, MemorySpace.Mat), None)


def _tensor_boundary(op: str, resize: Any):
    def deduce(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
        src = require_tensor(op, args[0], "the operand")
        require_rank(op, src.shape, 2, "the operand")
        axis = _split_mode(op, kwargs, len(src.shape))
        if axis is None:
            return src
        shape, valid = resize(src.shape, list(tensor_valid(src)), axis)
        view = None
        if not dims_equal(valid, shape) or src.tensor_view is not None:
            base = src.tensor_view or TensorView()
            view = base.with_fields(valid_shape=tuple(valid), stride=())
        return TensorType(shape, src.dtype, None, view)

    return deduce


def deduce_subblock_idx(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    return ScalarType(DataType.INDEX)


def _push(op: str, c2v: bool):
    def deduce(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
        src = require_tile(op, args[0], "the pushed tile")
        if c2v:
            check_boundary_valid(op, src.shape, src.valid_shape, _split_axis_of_code(kwargs["split"]))
        return UnknownType()

    return deduce


def _pop(op: str, space: MemorySpace):
    def deduce(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
        shape, dtype = kwargs.get("shape"), kwargs.get("dtype")
        if (shape is None) != (dtype is None):
            raise TypeError(f"{op}: give both shape= and dtype= (or neither, and annotate the assignment)")
        if shape is None:
            return UnknownType()
        if not shape or any(not isinstance(d, int) or d <= 0 for d in shape):
            raise ValueError(f"{op}: shape= must be a list of positive integers, got {list(shape)}")
        return TileType(list(shape), dtype, None, None, space)

    return deduce


def _free(op: str):
    def deduce(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
        require_tile(op, args[0], "the freed tile")
        return UnknownType()

    return deduce


def _kw_split(choices: tuple[int, ...], required: bool = True, default: Any = None) -> KwargSpec:
    return KwargSpec("split", (int,), default, required=required, choices=choices)


_ID = KwargSpec("id", (int,))
_LANE_STRIDE = KwargSpec("lane_stride", (int,))
_POP_SHAPE = (KwargSpec("shape", (tuple, list)), KwargSpec("dtype", (DataType,)))

OPDEFS = [
    OpDef("tile.get_subblock_idx", deduce_subblock_idx, affinity=CoreAffinity.VECTOR,
          traits=OpTraits(lane_index=True), doc="The AIV lane index (0 or 1)."),
    OpDef("tile.get_block_idx", deduce_subblock_idx, doc="The core-group (block) index."),
    OpDef("tile.aiv_shard", deduce_tile_aiv_shard, args=(ArgSpec("tile"),),
          kwargs=(_kw_split(_SPLIT_MODES), _LANE_STRIDE), affinity=CoreAffinity.MIXED,
          output_memory=OutputMemory(fixed=MemorySpace.Vec), traits=OpTraits(split_boundary="c2v"),
          doc="Cube -> vector boundary: this lane's half."),
    OpDef("tile.aic_gather", deduce_tile_aic_gather, args=(ArgSpec("tile"),), kwargs=(_kw_split(_SPLIT_MODES),),
          affinity=CoreAffinity.MIXED, output_memory=OutputMemory(fixed=MemorySpace.Mat),
          traits=OpTraits(split_boundary="v2c"),
          doc="Vector -> cube boundary: both lanes' halves reassembled."),
    OpDef("tensor.aiv_shard", _tensor_boundary("tensor.aiv_shard", _halved), args=(ArgSpec("tensor"),),
          kwargs=(_kw_split(_SPLIT_MODES),), affinity=CoreAffinity.MIXED, traits=OpTraits(split_boundary="c2v"),
          doc="Region boundary on a tensor: this lane's half."),
    OpDef("tensor.aic_gather", _tensor_boundary("tensor.aic_gather", _doubled), args=(ArgSpec("tensor"),),
          kwargs=(_kw_split(_SPLIT_MODES),), affinity=CoreAffinity.MIXED, traits=OpTraits(split_boundary="v2c"),
          doc="Region boundary on a tensor: both halves reassembled."),
    OpDef("tile.tpush_to_aiv", _push("tile.tpush_to_aiv", c2v=True), args=(ArgSpec("tile"),),
          kwargs=(_kw_split(_SPLIT_CODES), _LANE_STRIDE, _ID), affinity=CoreAffinity.CUBE,
          cross_core_role=CrossCoreRole.PUSH, doc="Push a tile from the cube to the vector lanes."),
    OpDef("tile.tpush_to_aic", _push("tile.tpush_to_aic", c2v=False), args=(ArgSpec("tile"),),
          kwargs=(_kw_split(_SPLIT_CODES), _ID), affinity=CoreAffinity.VECTOR,
          cross_core_role=CrossCoreRole.PUSH, doc="Push a tile from a vector lane to the cube."),
    OpDef("tile.tpop_from_aic", _pop("tile.tpop_from_aic", MemorySpace.Vec),
          kwargs=(_kw_split(_SPLIT_CODES, False, 0), _LANE_STRIDE, _ID, *_POP_SHAPE), affinity=CoreAffinity.VECTOR,
          cross_core_role=CrossCoreRole.POP, doc="Pop the tile the cube pushed (on a vector lane)."),
    OpDef("tile.tpop_from_aiv", _pop("tile.tpop_from_aiv", MemorySpace.Mat),
          kwargs=(_kw_split(_SPLIT_CODES, False, 0), _ID, *_POP_SHAPE), affinity=CoreAffinity.CUBE,
          cross_core_role=CrossCoreRole.POP, doc="Pop the tile the vector lanes pushed (on the cube)."),
    OpDef("system.tfree_to_aic", _free("system.tfree_to_aic"), args=(ArgSpec("tile"),),
          kwargs=(_kw_split(_SPLIT_CODES, False), _ID), affinity=CoreAffinity.VECTOR,
          cross_core_role=CrossCoreRole.FREE, doc="Release a popped slot back to the cube."),
    OpDef("system.tfree_to_aiv", _free("system.tfree_to_aiv"), args=(ArgSpec("tile"),),
          kwargs=(_kw_split(_SPLIT_CODES, False), _ID), affinity=CoreAffinity.CUBE,
          cross_core_role=CrossCoreRole.FREE, doc="Release a popped slot back to the vector lanes."),
]

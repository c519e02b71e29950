"""Cross-core data: the AIV split boundaries tile.aiv_shard / aic_gather and tensor.aiv_shard / aic_gather,
and the FIFO transfers tile.tpush_to_aiv / tpush_to_aic, tile.tpop_from_aic / tpop_from_aiv,
system.tfree_to_aic / tfree_to_aiv (docs/dsl.md, splitting vector work).

IR layouts:
* `tile.aiv_shard(x)` kwargs `split` (SplitMode int 0/1/2), optional `lane_stride`; `tile.aic_gather(x)` kwarg
  `split`; `tensor.aiv_shard(t)` / `tensor.aic_gather(t)` kwarg `split`. The parser turns `pl.aiv_shard(x)` /
  `pl.aic_gather(x)` inside a pl.split_aiv region into these with the region's split; `pl.tile.aiv_shard` is
  the IR builder, which takes it explicitly.
* `tile.tpush_to_aiv(x)` / `tile.tpush_to_aic(x)` kwargs `split` (pto-isa code 0..4: 1 / 3 up-down, 2 / 4
  left-right, 0 none), `lane_stride`, `id`; `tile.tpop_from_aic()` / `tile.tpop_from_aiv()` kwargs exactly
  `split` (always recorded, 0 when not written), then `lane_stride` (from_aic only) and `id` when given; the
  builders' `shape=` / `dtype=` (or `result_type=`) only build the result type; `system.tfree_to_aic(x)` /
  `system.tfree_to_aiv(x)` kwargs `split`, `id`. The transfers are also `pl.system.*` and top-level names.

aiv_shard halves the split axis ((n + 1) // 2, dynamic n // 2) and ceil-halves a static valid extent (a
runtime one gives the whole lane box: the consumers carry each lane's extent), lands in Vec and keeps no
layout; aic_gather doubles it (and a partial valid extent on the split axis: both lanes carry the operand's
extent; the pass retypes localized gathers exactly) and lands in Mat (docs/passes/lower_auto_vector_split.md:
the consumer lane's space). aiv_shard checks the boundary valid-region contract
(docs/passes/lower_auto_vector_split.md, lane extents): a runtime column extent, a narrowed column on the
LEFT_RIGHT split axis, and rows narrowed per lane together with narrowed columns are rejected. A hand-written
tpush_to_aiv checks nothing of the pushed tile's valid shape: the whole box crosses, each lane takes its half
of it, and the consumer annotates the popped tile's valid shape. lane_stride must
be positive and at most the lane box. A pop's registry type is UnknownType: the builder given `shape=` and
`dtype=` attaches a TileType (Vec from the AIC, Mat from the AIV), `result_type=` attaches that type, otherwise
an annotation of the assignment gives it one (the printed form is the annotated assignment).

Semantics: the FIFO protocol and where each lane's rows / columns sit in a slot belong to the machine model
(pypto_core/interp/fifo.py). aiv_shard gives lane L the window starting at L * S on the split axis (S =
lane_stride, else the lane box; a tensor's is a view of the caller's tensor when it lies inside it);
aic_gather puts lane l's valid part at l * box (a lane barrier). Tile forms: the tensor boundaries are the tile
ops of the same name.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import MemorySpace
from pypto_core.ir.expr import Call, Expr
from pypto_core.ir.span import Span
from pypto_core.ir.types import TensorType, TensorView, TileType, Type, UnknownType, dims_equal
from pypto_core.ops.build import (
    ceil_half,
    ceil_half_extent,
    doubled,
    dsl_entry,
    int_list,
    require_rank,
    require_tensor,
    require_tile,
    same_dim,
    shape_text,
    static_int,
    to_dtype,
    to_int,
)
from pypto_core.ops.family import OpFamily
from pypto_core.ops.opdef import (
    ArgSpec,
    CoreAffinity,
    CrossCoreRole,
    KwargSpec,
    OpDef,
    OpTraits,
    OutputMemory,
)
from pypto_core.ops.registry import create_op_call
from pypto_core.ops.tile_form import TileForm
from pypto_plugins.ops_tile.common.dsl import registered
from pypto_plugins.ops_tile.common.shapes import tensor_valid
from pypto_plugins.ops_tile.common.views import valid_view

family = OpFamily("cross_core", semantics="pypto_plugins.ops_tile.semantics.cross_core")

_SPLIT_MODES = (0, 1, 2)
_SPLIT_CODES = (0, 1, 2, 3, 4)


# -- type rules ---------------------------------------------------------------------------------------------
def _split_axis_of_code(code: int) -> int | None:
    """pto-isa split code -> axis: 1/3 up-down (rows), 2/4 left-right (cols), 0 none."""
    return None if code == 0 else (0 if code in (1, 3) else 1)


def check_boundary_valid(op: str, shape: Sequence[Expr], valid: Sequence[Expr], axis: int | None) -> None:
    """The valid region a C->V boundary can carry. With split code 0 nothing is cut: the whole tile crosses with
    the valid region it has, static or runtime."""
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
    # whole lane box and the consumers carry the lane's extent (docs/passes/lower_auto_vector_split.md).
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
    # The space is left to the registry's output-memory rule (create_op_call fills it in).
    return TileType(shape, src.dtype, None, valid_view(valid, shape, MemorySpace.Vec), None)


def deduce_tile_aic_gather(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tile.aic_gather"
    src = require_tile(op, args[0], "the operand")
    axis = _split_mode(op, kwargs, len(src.shape))
    shape, valid = list(src.shape), list(src.valid_shape)
    if axis is not None:
        shape, valid = _doubled(shape, valid, axis)
    return TileType(shape, src.dtype, None, valid_view(valid, shape, MemorySpace.Mat), None)


def tensor_boundary_deducer(op: str, resize: Callable[..., tuple[list[Expr], list[Expr]]]) -> Callable[..., Type]:
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


def push_deducer(op: str) -> Callable[..., Type]:
    """A push checks nothing of the pushed tile's valid shape, for any split: a hand-written C->V crossing
    moves the whole box, each lane taking its half, and the consumer annotates what it pops."""

    def deduce(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
        require_tile(op, args[0], "the pushed tile")
        return UnknownType()

    return deduce


def pop_deducer(op: str) -> Callable[..., Type]:
    def deduce(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
        return UnknownType()  # the builder (shape= / dtype= or result_type=) or an annotation gives the type

    return deduce


def free_deducer(op: str) -> Callable[..., Type]:
    def deduce(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
        require_tile(op, args[0], "the freed tile")
        return UnknownType()

    return deduce


# -- ops ----------------------------------------------------------------------------------------------------
def _kw_split(choices: tuple[int, ...], required: bool = True, default: Any = None) -> KwargSpec:
    return KwargSpec("split", (int,), default, required=required, choices=choices)


_ID = KwargSpec("id", (int,))
_LANE_STRIDE = KwargSpec("lane_stride", (int,))
_TILE = (ArgSpec("tile"),)

family.op(OpDef("tile.aiv_shard", deduce_tile_aiv_shard, args=_TILE, kwargs=(_kw_split(_SPLIT_MODES), _LANE_STRIDE),
                affinity=CoreAffinity.MIXED, output_memory=OutputMemory(fixed=MemorySpace.Vec),
                traits=OpTraits(split_boundary="c2v"), doc="Cube -> vector boundary: this lane's half."),
          dsl="tile.aiv_shard")
family.op(OpDef("tile.aic_gather", deduce_tile_aic_gather, args=_TILE, kwargs=(_kw_split(_SPLIT_MODES),),
                affinity=CoreAffinity.MIXED, output_memory=OutputMemory(fixed=MemorySpace.Mat),
                traits=OpTraits(split_boundary="v2c"), doc="Vector -> cube boundary: both lanes' halves reassembled."),
          dsl="tile.aic_gather")
family.op(OpDef("tensor.aiv_shard", tensor_boundary_deducer("tensor.aiv_shard", _halved), args=(ArgSpec("tensor"),),
                kwargs=(_kw_split(_SPLIT_MODES),), affinity=CoreAffinity.MIXED, traits=OpTraits(split_boundary="c2v"),
                doc="Region boundary on a tensor: this lane's half."), dsl="tensor.aiv_shard")
family.op(OpDef("tensor.aic_gather", tensor_boundary_deducer("tensor.aic_gather", _doubled),
                args=(ArgSpec("tensor"),), kwargs=(_kw_split(_SPLIT_MODES),), affinity=CoreAffinity.MIXED,
                traits=OpTraits(split_boundary="v2c"), doc="Region boundary on a tensor: both halves reassembled."),
          dsl="tensor.aic_gather")
family.op(OpDef("tile.tpush_to_aiv", push_deducer("tile.tpush_to_aiv"), args=_TILE,
                kwargs=(_kw_split(_SPLIT_CODES), _LANE_STRIDE, _ID), affinity=CoreAffinity.CUBE,
                cross_core_role=CrossCoreRole.PUSH, doc="Push a tile from the cube to the vector lanes."),
          dsl="tile.tpush_to_aiv")
family.op(OpDef("tile.tpush_to_aic", push_deducer("tile.tpush_to_aic"), args=_TILE,
                kwargs=(_kw_split(_SPLIT_CODES), _ID), affinity=CoreAffinity.VECTOR,
                cross_core_role=CrossCoreRole.PUSH, doc="Push a tile from a vector lane to the cube."),
          dsl="tile.tpush_to_aic")
family.op(OpDef("tile.tpop_from_aic", pop_deducer("tile.tpop_from_aic"),
                kwargs=(_kw_split(_SPLIT_CODES, False, 0), _LANE_STRIDE, _ID), affinity=CoreAffinity.VECTOR,
                cross_core_role=CrossCoreRole.POP, doc="Pop the tile the cube pushed (on a vector lane)."))
family.op(OpDef("tile.tpop_from_aiv", pop_deducer("tile.tpop_from_aiv"),
                kwargs=(_kw_split(_SPLIT_CODES, False, 0), _ID), affinity=CoreAffinity.CUBE,
                cross_core_role=CrossCoreRole.POP, doc="Pop the tile the vector lanes pushed (on the cube)."))
family.op(OpDef("system.tfree_to_aic", free_deducer("system.tfree_to_aic"), args=_TILE,
                kwargs=(_kw_split(_SPLIT_CODES, False), _ID), affinity=CoreAffinity.VECTOR,
                cross_core_role=CrossCoreRole.FREE, doc="Release a popped slot back to the cube."),
          dsl="system.tfree_to_aic")
family.op(OpDef("system.tfree_to_aiv", free_deducer("system.tfree_to_aiv"), args=_TILE,
                kwargs=(_kw_split(_SPLIT_CODES, False), _ID), affinity=CoreAffinity.CUBE,
                cross_core_role=CrossCoreRole.FREE, doc="Release a popped slot back to the vector lanes."),
          dsl="system.tfree_to_aiv")
family.implement("tile_form", "tensor.aiv_shard", TileForm(op="tile.aiv_shard"))
family.implement("tile_form", "tensor.aic_gather", TileForm(op="tile.aic_gather"))


# -- DSL ----------------------------------------------------------------------------------------------------
def _pop_kwargs(split: Any, lane_stride: Any, id: Any) -> dict[str, Any]:
    """Exactly `split` (always), then `lane_stride` and `id` when given, in that order.

    `split=None` written out is the default, 0, as when left out: the two print and parse back alike."""
    return {k: to_int(v, k) for k, v in (("split", 0 if split is None else split), ("lane_stride", lane_stride),
                                         ("id", id)) if v is not None}


def _popped(op: str, kwargs: dict[str, Any], space: MemorySpace, shape: Any, dtype: Any, result_type: Any,
            span: Span | None) -> Call:
    """The pop with the type its builder states: `result_type=`, or a tile of `shape` x `dtype` in `space`
    (never stored as kwargs); neither: UnknownType until an annotation of the assignment types it."""
    if result_type is not None and (shape is not None or dtype is not None):
        raise ValueError(f"{op}: give either result_type= or shape= and dtype=, not both")
    if (shape is None) != (dtype is None):
        raise ValueError(f"{op}: give both shape= and dtype= (or neither, and annotate the assignment)")
    call = create_op_call(op, [], kwargs, span=span)
    if shape is not None:
        dims = int_list(shape, "shape")
        if not dims or any(d <= 0 for d in dims):
            raise ValueError(f"{op}: shape= must be a list of positive integers, got {dims}")
        result_type = TileType(dims, to_dtype(dtype), None, None, space)
    if result_type is None:
        return call
    if not isinstance(result_type, Type):
        raise ValueError(f"{op}: result_type= must be an IR type, got {type(result_type).__name__}")
    return call.with_fields(type=result_type)  # type: ignore[return-value]


@family.dsl("tile.tpop_from_aic")
@dsl_entry
def tpop_from_aic(span: Span | None = None, *, split: Any = 0, lane_stride: Any = None, id: Any = None,
                  shape: Any = None, dtype: DataType | None = None, result_type: Type | None = None) -> Call:
    """split is always recorded (0 when not written); shape= / dtype= or result_type= give the result type."""
    return _popped("tile.tpop_from_aic", _pop_kwargs(split, lane_stride, id), MemorySpace.Vec, shape, dtype,
                   result_type, span)


@family.dsl("tile.tpop_from_aiv")
@dsl_entry
def tpop_from_aiv(span: Span | None = None, *, split: Any = 0, id: Any = None, shape: Any = None,
                  dtype: DataType | None = None, result_type: Type | None = None) -> Call:
    return _popped("tile.tpop_from_aiv", _pop_kwargs(split, None, id), MemorySpace.Mat, shape, dtype,
                   result_type, span)


# The transfers are also system names and top-level names (docs/reference/ops.md lists them among the system
# ops); they build the same tile.* calls.
for _name in ("tpush_to_aiv", "tpush_to_aic"):
    family.dsl_function(f"system.{_name}", registered(f"tile.{_name}"))
    family.dsl_function(_name, registered(f"tile.{_name}"))
for _name, _fn in (("tpop_from_aic", tpop_from_aic), ("tpop_from_aiv", tpop_from_aiv)):
    family.dsl_function(f"system.{_name}", _fn)
    family.dsl_function(_name, _fn)
for _name in ("tfree_to_aic", "tfree_to_aiv"):
    family.dsl_function(_name, registered(f"system.{_name}"))

"""Tiles and tensors built from nothing but their attributes: tile.full / tensor.full, tile.create /
tensor.create / tensor.create_l1, tile.expands / tensor.expands, and the buffer declarations tile.alloc /
tensor.alloc (the positional generators ci / random / tri are generators.py).

IR layouts (docs/reference/ops.md):
* `tile.full(shape, value)` / `tensor.full(shape, value)` kwarg `dtype`, printed `pl.tile.full(shape,
  dtype=.., value=..)`; a float value cannot fill an integer tile; a number becomes a constant of the fill
  dtype (printed bare).
* `tile.create(shape)` kwargs `dtype`, `target_memory` (+ `transpose`, `flat_layout` when given): without
  `target_memory` the space is deferred to InferTileMemorySpace (printed `target_memory=None`); LeftScale /
  RightScale cannot be created (MX scales are moved there); `transpose` needs a 2-D Mat tile, `flat_layout` a
  Mat tile. `pl.tile.create` without target_memory creates in Vec (`pl.tile.create_tile` is the same).
* `tensor.create(shape)` kwargs `dtype`, `layout` (recorded; a non-ND layout goes to the TensorView), and
  `manual_dep`, `init_value` when given; `tensor.create_l1(shape)` kwargs `dtype`, `transpose`: a tensor in L1
  (Mat) of constant positive dims.
* `tile.expands(target, s)` / `tensor.expands(target, s)`: a tile of target's shape and valid region filled
  with s in the promoted dtype (target's values are not read); a tensor of target's shape and dtype.
* `tile.alloc(memory_space, size)` / `tensor.alloc(memory_space, size)`: declare a buffer of `size` bytes
  (on chip, not DDR / in DDR). The result is a `pl.Ptr`, the allocation's identity; the space prints as
  `pl.Mem.Vec` (docs/memory_planning.md). A tile whose MemRef names the Ptr lives at the MemRef's bytes on the
  reference machine; the alloc itself computes nothing.

full and create are pure generators that describe a shape (docs/passes/lower_auto_vector_split.md, when a
halved call is sound). Tile forms: tensor.create is a tile.create (memory space left to
InferTileMemorySpace; `init_value` makes it a tile.full), tensor.full a tile.full, tensor.create_l1 a
tile.create in Mat, tensor.expands a tile.expands of the target's tile with the scalar cast to the target's
dtype; tensor.alloc stays (a scalar declaration). 2-D forms: create / full take the merged shape.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pypto_core.ir import scalar_ops
from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import MemorySpace, TensorLayout, TileLayout
from pypto_core.ir.expr import Call, ConstFloat, ConstInt, Expr
from pypto_core.ir.span import Span
from pypto_core.ir.types import PtrType, ScalarType, TensorType, TensorView, TileType, TileView, Type
from pypto_core.ops.build import (
    dsl_entry,
    promote_dtypes,
    require_scalar,
    require_tensor,
    require_tile,
    shape_text,
    static_int,
    to_bool,
    to_dtype,
    to_expr,
    to_float,
    to_int,
    to_tuple,
)
from pypto_core.ops.family import OpFamily
from pypto_core.ops.opdef import ArgSpec, CoreAffinity, KwargSpec, OpDef, OpTraits, OutputMemory
from pypto_core.ops.registry import create_op_call
from pypto_core.ops.tile_form import TileForm, TileLowering
from pypto_plugins.ops_tile.common.dsl import (
    Builder,
    dispatch_between,
    dsl_named,
    fill_value,
    scalar_for,
    set_if,
)
from pypto_plugins.ops_tile.common.flatten import merge_shape_operand
from pypto_plugins.ops_tile.common.shapes import shape_operand, static_shape
from pypto_plugins.ops_tile.common.tile_forms import tile_of
from pypto_plugins.ops_tile.common.views import VEC_RESULT, result_tile, row_major, vec_op

family = OpFamily("creation", semantics="pypto_plugins.ops_tile.semantics.creation")

PTR = PtrType()  # an allocation's identity (docs/memory_planning.md)


# -- type rules ---------------------------------------------------------------------------------------------
def deduce_tile_full(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    shape = shape_operand("tile.full", args[0])
    value = require_scalar("tile.full", args[1], "the fill value")
    dtype = kwargs["dtype"]
    if value.dtype.is_float() and not dtype.is_float():
        raise TypeError(f"tile.full: a float value cannot fill a {dtype.name} tile")
    return TileType(shape, dtype, None, None, MemorySpace.Vec)


def deduce_tensor_full(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    shape = shape_operand("tensor.full", args[0])
    value = require_scalar("tensor.full", args[1], "the fill value")
    if value.dtype.is_float() and not kwargs["dtype"].is_float():
        raise TypeError(f"tensor.full: a float value cannot fill a {kwargs['dtype'].name} tensor")
    return TensorType(shape, kwargs["dtype"])


def deduce_tile_create(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tile.create"
    shape = shape_operand(op, args[0])
    space = kwargs.get("target_memory")  # absent: deferred
    if space in (MemorySpace.LeftScale, MemorySpace.RightScale):
        raise ValueError(f"{op}: target_memory {space.name} cannot be created; MX scales are moved there (tile.move)")
    view = None
    if kwargs.get("transpose"):
        if len(shape) != 2 or space is not MemorySpace.Mat:
            raise ValueError(f"{op}: transpose=True needs a 2-D tile in Mat, got {shape_text(shape)} in "
                             f"{getattr(space, 'name', 'an unplaced space')}")
        view = TileView(blayout=TileLayout.row_major, slayout=TileLayout.col_major)
    if kwargs.get("flat_layout") and space is not MemorySpace.Mat:
        raise ValueError(f"{op}: flat_layout=True is for Mat tiles only")
    return TileType(shape, kwargs["dtype"], None, view, space)


def deduce_tensor_create(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    shape = shape_operand("tensor.create", args[0])
    layout = kwargs.get("layout", TensorLayout.ND)
    view = TensorView(layout=layout) if layout is not TensorLayout.ND else None
    return TensorType(shape, kwargs["dtype"], None, view)


def deduce_create_l1(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    return TensorType(static_shape("tensor.create_l1", args[0]), kwargs["dtype"])


def deduce_tile_expands(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    target = require_tile("tile.expands", args[0], "target")
    s = require_scalar("tile.expands", args[1], "scalar")
    return result_tile(target.shape, promote_dtypes(target.dtype, s.dtype, "tile.expands"), target)


def deduce_tensor_expands(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    target = require_tensor("tensor.expands", args[0], "target")
    require_scalar("tensor.expands", args[1], "scalar")
    return TensorType(target.shape, target.dtype)


def _memory_space(op: str, e: Expr) -> MemorySpace:
    v = static_int(e)
    if v is None or v not in {m.value for m in MemorySpace}:
        raise TypeError(f"{op}: memory_space must be a constant memory space (e.g. pl.Mem.Vec), got {e}")
    return MemorySpace(v)


def _size(op: str, e: Expr) -> None:
    if not require_scalar(op, e, "size").dtype.is_int():
        raise TypeError(f"{op}: size must be an integer byte count, got {e.type}")
    v = static_int(e)
    if v is not None and v < 0:
        raise ValueError(f"{op}: size must not be negative, got {v}")


def deduce_tile_alloc(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tile.alloc"
    if _memory_space(op, args[0]) is MemorySpace.DDR:
        raise ValueError(f"{op}: memory_space DDR is a tensor allocation; use tensor.alloc")
    _size(op, args[1])
    return PTR


def deduce_tensor_alloc(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tensor.alloc"
    space = _memory_space(op, args[0])
    if space is not MemorySpace.DDR:
        raise ValueError(f"{op}: memory_space must be DDR, got {space.name}; on-chip buffers are tile.alloc")
    _size(op, args[1])
    return PTR


# -- ops ----------------------------------------------------------------------------------------------------
_DTYPE = KwargSpec("dtype", (DataType,), required=True)
_GENERATES_SHAPE = OpTraits(pure_generator=True, shape_describing=True, shape_args=(0,))

family.op(OpDef("tile.full", deduce_tile_full, args=(ArgSpec("shape"), ArgSpec("value")), kwargs=(_DTYPE,),
                output_memory=VEC_RESULT, traits=_GENERATES_SHAPE, doc="A tile filled with one value."))
family.op(OpDef("tile.create", deduce_tile_create, args=(ArgSpec("shape"),),
                kwargs=(_DTYPE, KwargSpec("target_memory", (MemorySpace,), None, deferred=True),
                        KwargSpec("transpose", (bool,), None), KwargSpec("flat_layout", (bool,), None)),
                affinity=CoreAffinity.SHARED, output_memory=OutputMemory(from_kwarg="target_memory"),
                traits=_GENERATES_SHAPE, doc="Allocate an uninitialised tile."))
family.op(OpDef("tensor.create", deduce_tensor_create, args=(ArgSpec("shape"),),
                kwargs=(_DTYPE, KwargSpec("layout", (TensorLayout,), TensorLayout.ND, recorded=True),
                        KwargSpec("manual_dep", (bool,), False), KwargSpec("init_value", (int, float))),
                traits=OpTraits(shape_args=(0,)), doc="A new tensor."))
family.op(OpDef("tensor.full", deduce_tensor_full, args=(ArgSpec("shape"), ArgSpec("value")), kwargs=(_DTYPE,),
                traits=OpTraits(shape_args=(0,), pure_generator=True), doc="A tensor filled with one value."))
family.op(OpDef("tensor.create_l1", deduce_create_l1, args=(ArgSpec("shape"),),
                kwargs=(_DTYPE, KwargSpec("transpose", (bool,), False)), traits=OpTraits(shape_args=(0,)),
                doc="An uninitialised tensor in L1 (Mat); lowered to tile.create in Mat."))
family.op(vec_op("expands", deduce_tile_expands, (ArgSpec("target"), ArgSpec("scalar")),
                 "A tile of target's shape and valid region filled with the scalar (target's values are not read)."))
family.op(OpDef("tensor.expands", deduce_tensor_expands, args=(ArgSpec("target"), ArgSpec("scalar")),
                doc="A tensor of target's shape and dtype filled with the scalar."))
def alloc_affinity(call: Call) -> CoreAffinity:
    """An allocation runs on the core that owns its space: Vec on the vector core, the others on the cube."""
    space = static_int(call.args[0]) if call.args else None
    return CoreAffinity.VECTOR if space == MemorySpace.Vec.value else CoreAffinity.CUBE


_SPACE_ARG = ArgSpec("memory_space", enum=MemorySpace)
family.op(OpDef("tile.alloc", deduce_tile_alloc, args=(_SPACE_ARG, ArgSpec("size")),
                kwargs=(KwargSpec("pinned", (bool,), False),), affinity=alloc_affinity,
                doc="Declare an on-chip buffer of `size` bytes in `memory_space`: a pl.Ptr, the allocation's "
                    "identity (docs/memory_planning.md)."))
family.op(OpDef("tensor.alloc", deduce_tensor_alloc, args=(_SPACE_ARG, ArgSpec("size")),
                doc="Declare a DDR buffer of `size` bytes: a pl.Ptr."))


# A new buffer with undefined contents (OptimizeOrchTensors reuses a dead input instead of a fresh tensor;
# docs/passes/optimize_orch_tensors.md): an init_value defines them.
def uninitialised_unless_init_value(call: Any) -> bool:
    return call.kwargs.get("init_value") is None


family.set_traits("tile.create", "tensor.create_l1", fresh_buffer=True)
family.set_traits("tensor.create", fresh_buffer=uninitialised_unless_init_value)


# -- tile forms ---------------------------------------------------------------------------------------------
def lower_tensor_create(ctx: TileLowering, call: Call) -> Expr:
    dtype = call.kwargs["dtype"]
    init = call.kwargs.get("init_value")
    if init is None:
        # In Vec, as PyPTO's (docs/passes/convert_tensor_to_tile_ops.md); InferTileMemorySpace re-places a
        # loop carry's create where its yields live (a matmul_acc accumulator in Acc).
        return ctx.call("tile.create", [call.args[0]], {"dtype": dtype, "target_memory": MemorySpace.Vec})
    value: Expr = ConstFloat(float(init), dtype) if dtype.is_float() else ConstInt(int(init), dtype)
    return ctx.call("tile.full", [call.args[0], value], {"dtype": dtype})


family.implement("tile_form", "tensor.create", TileForm(lower=lower_tensor_create))


def lower_create_l1(ctx: TileLowering, call: Call) -> Expr:
    kwargs: dict[str, Any] = {"dtype": call.kwargs["dtype"], "target_memory": MemorySpace.Mat}
    if call.kwargs.get("transpose"):
        kwargs["transpose"] = True
    return ctx.call("tile.create", [call.args[0]], kwargs)


family.implement("tile_form", "tensor.create_l1", TileForm(lower=lower_create_l1))


def lower_tensor_expands(ctx: TileLowering, call: Call) -> Expr:
    """tile.expands of the target's tile, the scalar cast to the target's dtype (tensor.expands keeps it)."""
    target, scalar = tile_of(ctx, call.args[0]), call.args[1]
    t = call.type
    assert isinstance(t, TensorType)
    if isinstance(scalar.type, ScalarType) and scalar.type.dtype is not t.dtype:
        scalar = scalar_ops.cast(scalar, t.dtype)
    return ctx.call("tile.expands", [target, scalar])


family.implement("tile_form", "tensor.expands", TileForm(lower=lower_tensor_expands))


def stays_a_declaration(ctx: TileLowering, call: Call) -> Expr:
    """tensor.alloc declares a DDR buffer: it stays (a scalar) in tile code."""
    return call


family.implement("tile_form", "tensor.full", TileForm(op="tile.full"))
family.implement("tile_form", "tensor.alloc", TileForm(lower=stays_a_declaration, gm_access=True))
family.implement("flatten_2d", "tile.create", merge_shape_operand(0))
family.implement("flatten_2d", "tile.full", merge_shape_operand(0))


# -- DSL ----------------------------------------------------------------------------------------------------
@family.dsl("tile.full")
@dsl_named("full")
def tile_full(shape: Any, dtype: DataType, value: Any, span: Span | None = None) -> Call:
    dtype = to_dtype(dtype)
    return create_op_call("tile.full", [to_tuple(shape, span), fill_value(value, dtype, span)], {"dtype": dtype},
                          span=span)


@family.dsl("tensor.full")
@dsl_named("full")
def tensor_full(shape: Any, dtype: DataType, value: Any, span: Span | None = None) -> Call:
    dtype = to_dtype(dtype)
    return create_op_call("tensor.full", [to_tuple(shape, span), fill_value(value, dtype, span)], {"dtype": dtype},
                          span=span)


@family.dsl("tile.create")
@dsl_named("create")
def tile_create(shape: Any, dtype: DataType, target_memory: MemorySpace | None = MemorySpace.Vec,
                transpose: Any = None, span: Span | None = None, *, flat_layout: Any = None) -> Call:
    """An unwritten target_memory is Vec; `target_memory=None` defers the choice (printed so)."""
    kwargs: dict[str, Any] = {"dtype": to_dtype(dtype)}
    if target_memory is not None:
        kwargs["target_memory"] = target_memory
    if transpose is not None:
        kwargs["transpose"] = to_bool(transpose, "transpose")
    if flat_layout is not None:
        kwargs["flat_layout"] = to_bool(flat_layout, "flat_layout")
    return create_op_call("tile.create", [to_tuple(shape, span)], kwargs, span=span)


@family.dsl("tensor.create")
@dsl_named("create")
def tensor_create(shape: Any, dtype: DataType, layout: TensorLayout = TensorLayout.ND, manual_dep: Any = False,
                  init_value: Any = None, span: Span | None = None) -> Call:
    kwargs: dict[str, Any] = {"dtype": to_dtype(dtype), "layout": layout}
    set_if(kwargs, "manual_dep", to_bool(manual_dep, "manual_dep"), False)
    if init_value is not None:
        kwargs["init_value"] = init_value if isinstance(init_value, int) else to_float(init_value, "init_value")
    return create_op_call("tensor.create", [to_tuple(shape, span)], kwargs, span=span)


@family.dsl("tensor.create_l1")
@dsl_named("create_l1")
def create_l1_builder(shape: Any, dtype: DataType, transpose: Any = False, span: Span | None = None) -> Call:
    kwargs: dict[str, Any] = {"dtype": to_dtype(dtype)}
    set_if(kwargs, "transpose", to_bool(transpose, "transpose"), False)
    return create_op_call("tensor.create_l1", [to_tuple(shape, span)], kwargs, span=span)


def expands_builder(namespace: str) -> Builder:
    """`pl.<ns>.expands(target, scalar)`: an untyped literal takes the target's dtype."""

    def expands(target: Expr, scalar: Any, span: Span | None = None) -> Call:
        return create_op_call(f"{namespace}.expands", [target, scalar_for(scalar, target, span)], span=span)

    return dsl_entry(expands)


def _space(value: Any, span: Span | None) -> Expr:
    """The memory space operand of alloc: `pl.Mem.Vec` becomes its int value."""
    if isinstance(value, MemorySpace):
        return ConstInt(value.value, DataType.INDEX, span)
    return to_expr(to_int(value, "memory_space"), span)


@family.dsl("tile.alloc")
@dsl_entry
def tile_alloc(memory_space: Any, size: Any, span: Span | None = None, *, pinned: Any = False) -> Call:
    kwargs: dict[str, Any] = {}
    set_if(kwargs, "pinned", to_bool(pinned, "pinned"), False)
    return create_op_call("tile.alloc", [_space(memory_space, span), to_expr(size, span)], kwargs, span=span)


@family.dsl("tensor.alloc")
@dsl_entry
def tensor_alloc(memory_space: Any, size: Any, span: Span | None = None) -> Call:
    return create_op_call("tensor.alloc", [_space(memory_space, span), to_expr(size, span)], span=span)


_TILE_EXPANDS, _TENSOR_EXPANDS = expands_builder("tile"), expands_builder("tensor")
family.dsl_function("tile.expands", _TILE_EXPANDS)
family.dsl_function("tensor.expands", _TENSOR_EXPANDS)
family.dsl_function("tile.create_tile", tile_create)  # PyPTO's spellings: pl.tile.create / create_tile
family.dsl_function("tensor.create_tensor", tensor_create)
family.dsl_function("create_tensor", tensor_create)
family.dsl_function("create_tile", tile_create)
family.dsl_function("full", tensor_full)  # pl.full is tensor-level; pl.tile.full for tiles
family.dsl_function("create_l1", create_l1_builder)
family.dsl_function("expands", dispatch_between("expands", _TILE_EXPANDS, _TENSOR_EXPANDS))


# The row-major tiles the backend's instruction needs (ResolveBackendOpLayouts, docs/plugins.md, op interfaces).
family.implement("row_major_layout", "tile.full", row_major(()))

"""Ops that compose a tile or a tensor from others: assemble (a source written into a window of a target),
concat (two sources side by side) and expand_clone (a source broadcast into a target).

IR layouts (docs/reference/ops.md): `tile.assemble(target, source, offset)` / `tensor.assemble(...)` kwarg
`atomic` (1 = Add, only when set); `tile.concat(src0, src1)` / `tensor.concat(...)`; `tensor.expand_clone(input,
target)`.

Rules:
* assemble writes the source's valid region at the offset, which must not provably run past the target
  (offset + the source's valid extent; a symbolic extent is trusted); the target is
  ReadWrite on a tile (the rest of it is kept) and Write on a tensor (ReadWrite when atomic=Add);
  the result's valid region is the target's grown by the written window where that window starts inside or
  right after it (common/shapes.py, wunion). A tile target may take an FP32 source into BF16 / FP16; `atomic` on a tile
  is a pypto extension (PyPTO's tile.assemble has no kwargs): ConvertTensorToTileOps lowers an atomic
  tensor.assemble into an on-chip target to it. An atomic add needs FP32 / BF16 / FP16 / INT32 / INT16 / INT8
  elements.
* concat joins src0's columns and src1's (numpy hstack of the whole tiles: poison in an operand's padding stays
  poison in the result, whose valid region is its whole shape); both are 2-D of one dtype and row count.
* expand_clone: 3-D operands of equal rank, each input dim the target's or 1, at most one broadcast; it writes
  its target (arg 1) whole, without reading it -- PyPTO's outliner counts it among the ops that write a
  captured tensor (docs/passes/outline_incore_scopes.md, parameters).

Tile forms: an assemble into a GM tensor is a tile.store (an empty source valid region is a located error: the
hardware store runs only for a positive extent, TSTORE), into a tile a tile.assemble; concat is tile.concat;
expand_clone stays a GM op between GM tensors (there is no tile form for an operand computed on chip). 2-D
form: an assemble's window must span the whole middle dims.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pypto_core.errors import UserError
from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import AtomicType, MemorySpace
from pypto_core.ir.expr import Call, Expr, MakeTuple
from pypto_core.ir.span import Span
from pypto_core.ir.types import ScalarType, TensorType, TileType, Type
from pypto_core.ops.build import (
    check_window,
    dims_sum,
    promote_dtypes,
    require_rank,
    require_tensor,
    require_tile,
    shape_text,
    static_int,
    to_enum_int,
    to_tuple,
    tuple_elements,
)
from pypto_core.ops.family import OpFamily
from pypto_core.ops.opdef import ArgSpec, Effect, KwargSpec, OpDef, OpTraits, OutputMemory
from pypto_core.ops.registry import create_op_call
from pypto_core.ops.tile_form import TileForm, TileLowering
from pypto_plugins.ops_tile.common.dsl import dispatch_between, dsl_named, registered, set_if
from pypto_plugins.ops_tile.common.flatten import Flatten2DContext, rebuild, rows_window, tile_type
from pypto_plugins.ops_tile.common.shapes import check_atomic_dtype, tensor_valid, with_view_valid, wunion
from pypto_plugins.ops_tile.common.views import VEC_RESULT, same_view, vec_operands

family = OpFamily("assemble", semantics="pypto_plugins.ops_tile.semantics.assemble")


# -- type rules ---------------------------------------------------------------------------------------------
def deduce_tile_assemble(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
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


def tile_assemble_effects(kwargs: Mapping[str, Any]) -> Mapping[int, Effect]:
    """The target is ReadWrite (the rest of it is kept)."""
    return {0: Effect.READ_WRITE}


def deduce_tensor_assemble(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tensor.assemble"
    target = require_tensor(op, args[0], "the target")
    source = require_tensor(op, args[1], "the source")
    offsets = tuple_elements(args[2])
    if len(offsets) != len(target.shape) or len(source.shape) > len(target.shape):
        raise TypeError(f"{op}: {len(offsets)} offsets and a {len(source.shape)}-D source for a "
                        f"{len(target.shape)}-D target")
    if source.dtype is not target.dtype:
        raise TypeError(f"{op}: the source is {source.dtype.name} but the target is {target.dtype.name}")
    check_window(op, "writes", offsets, tensor_valid(source), target.shape, "target")  # the valid region moves
    check_atomic_dtype(op, kwargs.get("atomic", 0), target.dtype)
    grown = wunion(target.shape, tensor_valid(target), tensor_valid(source), offsets)
    return target if grown is None else with_view_valid(target, grown)


def tensor_assemble_effects(kwargs: Mapping[str, Any]) -> Mapping[int, Effect]:
    atomic = int(kwargs.get("atomic", 0)) == int(AtomicType.Add)
    return {0: Effect.READ_WRITE if atomic else Effect.WRITE}


def deduce_expand_clone(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    """3-D operands of equal rank; each input dim is the target's or 1, at most one is broadcast."""
    op = "tensor.expand_clone"
    src = require_tensor(op, args[0], "the input")
    target = require_tensor(op, args[1], "the target")
    if len(src.shape) != 3 or len(target.shape) != 3:
        raise TypeError(f"{op}: the input and the target must be 3-D, got {len(src.shape)}-D and "
                        f"{len(target.shape)}-D")
    broadcast = []
    for axis, (s, t) in enumerate(zip(src.shape, target.shape)):
        si, ti = static_int(s), static_int(t)
        if si == 1 and ti != 1:
            broadcast.append(axis)
        elif si is not None and ti is not None and si != ti:
            raise ValueError(f"{op}: input dim {axis} is {si}, which neither equals the target's {ti} nor is 1")
    if len(broadcast) > 1:
        raise ValueError(f"{op}: the input {shape_text(src.shape)} broadcasts dims {broadcast} of the target "
                         f"{shape_text(target.shape)}; at most one dim may be broadcast")
    return TensorType(target.shape, promote_dtypes(src.dtype, target.dtype, op))


def _concat_shape(op: str, a: TileType | TensorType, b: TileType | TensorType) -> list[Expr]:
    require_rank(op, a.shape, 2, "src0")
    require_rank(op, b.shape, 2, "src1")
    if a.dtype is not b.dtype:
        raise TypeError(f"{op}: src0 is {a.dtype.name} but src1 is {b.dtype.name}; both must have one dtype")
    r0, r1 = static_int(a.shape[0]), static_int(b.shape[0])
    if r0 is not None and r1 is not None and r0 != r1:
        raise TypeError(f"{op}: src0 has {r0} rows but src1 has {r1}; concat joins columns of equal row counts")
    return [a.shape[0], dims_sum([a.shape[1], b.shape[1]])]


def deduce_tile_concat(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tile.concat"
    a, b = require_tile(op, args[0], "src0"), require_tile(op, args[1], "src1")
    return TileType(_concat_shape(op, a, b), a.dtype, None, None, MemorySpace.Vec)


def deduce_tensor_concat(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tensor.concat"
    a, b = require_tensor(op, args[0], "src0"), require_tensor(op, args[1], "src1")
    return TensorType(_concat_shape(op, a, b), a.dtype)


# -- ops ----------------------------------------------------------------------------------------------------
_ATOMIC = KwargSpec("atomic", (int,), 0, choices=(0, 1))
_SOURCES = (ArgSpec("src0"), ArgSpec("src1"))

family.op(OpDef("tile.assemble", deduce_tile_assemble, args=(ArgSpec("target"), ArgSpec("source"), ArgSpec("offset")),
                kwargs=(_ATOMIC,), effects=tile_assemble_effects, output_memory=OutputMemory(inherit_input=0),
                traits=OpTraits(shape_args=(2,)), doc="Write a tile into a window of another tile."))
family.op(OpDef("tensor.assemble", deduce_tensor_assemble,
                args=(ArgSpec("target"), ArgSpec("source"), ArgSpec("offset")), kwargs=(_ATOMIC,),
                effects=tensor_assemble_effects, traits=OpTraits(shape_args=(2,)),
                doc="Write a tensor into a window of another tensor."))
family.op(OpDef("tensor.expand_clone", deduce_expand_clone, args=(ArgSpec("input"), ArgSpec("target")),
                effects={1: Effect.WRITE},
                doc="The target filled with the input broadcast along (at most) one dim; writes the target."),
          dsl="tensor.expand_clone")
family.op(OpDef("tile.concat", deduce_tile_concat, args=_SOURCES, input_memory=vec_operands(0, 1),
                output_memory=VEC_RESULT, doc="src0's columns followed by src1's: [rows, c0 + c1]."),
          dsl="tile.concat")
family.op(OpDef("tensor.concat", deduce_tensor_concat, args=_SOURCES,
                doc="src0's columns followed by src1's: [rows, c0 + c1]."), dsl="tensor.concat")


# -- tile forms ---------------------------------------------------------------------------------------------
def _reject_empty_store(call: Call, tile: Expr) -> None:
    """An assemble into a GM tensor becomes a tile.store, which the hardware runs for a positive valid extent
    only (TSTORE): a source whose valid region is statically empty is the program's mistake."""
    t = tile.type
    if not isinstance(t, TileType):
        return
    for axis, extent in enumerate(t.valid_shape):
        if static_int(extent) == 0:
            raise UserError(f"{call.op.name}: the value written here has an empty valid region (a valid extent of 0 "
                            f"on axis {axis}); the assemble into a global tensor becomes a tile.store, which the "
                            f"hardware runs only for a positive extent (TSTORE): give the window a positive "
                            f"valid extent, or leave the assemble out", call.span)


def lower_tensor_assemble(ctx: TileLowering, call: Call) -> Expr:
    """Into a GM tensor: a tile.store; into a tile: a tile.assemble."""
    target, source, offset = call.args
    atomic = call.kwargs.get("atomic", 0)
    if ctx.is_gm(target):
        tile = ctx.tile(source)
        _reject_empty_store(call, tile)
        return ctx.call("tile.store", [tile, offset, target], {"atomic": atomic} if atomic else {})
    return ctx.call("tile.assemble", [ctx.tile(target), ctx.tile(source), offset],
                    {"atomic": atomic} if atomic else {})


family.implement("tile_form", "tensor.assemble", TileForm(lower=lower_tensor_assemble))


def expand_clone_in_gm(ctx: TileLowering, call: Call) -> Expr:
    """An expand_clone between GM tensors stays a GM op in the kernel; there is no tile form for tiles yet."""
    if ctx.is_gm(call.args[0]) and ctx.is_gm(call.args[1]):
        return call
    raise ValueError("tensor.expand_clone has no tile form for an operand computed on chip; expand the tensor "
                     "outside the pl.at scope, or pass both tensors in as parameters")


family.implement("tile_form", "tensor.expand_clone", TileForm(lower=expand_clone_in_gm, gm_access=True))
family.implement("tile_form", "tensor.concat", TileForm(op="tile.concat"))


@family.implements("flatten_2d", "tile.assemble")
def flatten_assemble(call: Call, args: Sequence[Expr], ctx: Flatten2DContext) -> Call:
    """The source's window must span the whole middle dims of the target (a rectangle of rows)."""
    target, source = tile_type(call.args[0]), tile_type(call.args[1])
    if len(target.shape) <= 2:
        return rebuild(call, args)
    _, offset = rows_window(target.shape, source.shape, tuple_elements(args[2]), "source")
    return rebuild(call, [args[0], args[1], MakeTuple(offset)])


# -- DSL ----------------------------------------------------------------------------------------------------
def _atomic(atomic: Any) -> dict[str, Any]:
    """`atomic` recorded only when set (AtomicType.Add, its name or 1)."""
    kwargs: dict[str, Any] = {}
    set_if(kwargs, "atomic", to_enum_int(atomic, AtomicType, "atomic"), 0)
    return kwargs


@family.dsl("tile.assemble")
@dsl_named("assemble")
def tile_assemble(target: Expr, source: Expr, offset: Any, span: Span | None = None, *,
                  atomic: Any = AtomicType.None_) -> Call:
    return create_op_call("tile.assemble", [target, source, to_tuple(offset, span)], _atomic(atomic), span=span)


@family.dsl("tensor.assemble")
@dsl_named("assemble")
def tensor_assemble(target: Expr, source: Expr, offset: Any, span: Span | None = None, *,
                    atomic: Any = AtomicType.None_) -> Call:
    return create_op_call("tensor.assemble", [target, source, to_tuple(offset, span)], _atomic(atomic), span=span)


family.dsl_function("assemble", dispatch_between("assemble", tile_assemble, tensor_assemble))
family.dsl_function("concat", dispatch_between("concat", registered("tile.concat"), registered("tensor.concat")))
family.dsl_function("expand_clone", registered("tensor.expand_clone"))  # tensor-only


# Memory planning facts (docs/memory_planning.md): where a result's buffer lives, which operands it must not share.
family.set_traits("tile.assemble", buffer_view="view", writes_window=(0, 1, 2))  # written into the target's buffer
# Into a GM tensor the same write is a store (docs/passes/convert_tensor_to_tile_ops.md, the assemble-loop rewrite).
family.set_traits("tile.assemble", gm_store=("tile.store", (1, 2, 0)))
family.set_traits("tensor.assemble", output_reuses_input=0, writes_window=(0, 1, 2))
family.set_traits("tile.concat", output_must_not_alias="all")

"""Padding: tile.fillpad / fillpad_inplace / fillpad_expand and tensor.fillpad / fillpad_expand set the
elements outside the operand's valid region to a pad value, making the result all valid.

IR layouts (docs/reference/ops.md): `tile.fillpad(tile)` kwarg `pad_value` (zero, max or min; always
recorded; not null: nothing to fill with); `tile.fillpad_inplace(tile)` writes the operand's own buffer
(ReadWrite); `tile.fillpad_expand(tile, shape)`: the valid region at the origin of a bigger tile of `shape`
(constant dims, no smaller than the source in any dim), the rest the pad value. The tensor forms are alike;
their tile form is the tile op of the same name.

Pad values: zero -> 0; max / min -> +inf / -inf for floats, the dtype's largest / smallest integer for ints
(pto-isa's PadValue::Max / Min), True / False for BOOL. Memory: tile operands are read from Vec and the
result is Vec.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pypto_core.ir.enums import MemorySpace, PadValue
from pypto_core.ir.expr import Call, Expr
from pypto_core.ir.span import Span
from pypto_core.ir.types import TensorType, TensorView, TileType, Type
from pypto_core.ops.build import dsl_entry, require_tensor, require_tile, shape_text, static_int, to_tuple
from pypto_core.ops.family import OpFamily
from pypto_core.ops.opdef import ArgSpec, Effect, KwargSpec, OpDef, OpTraits
from pypto_core.ops.registry import create_op_call
from pypto_core.ops.tile_form import TileForm
from pypto_plugins.ops_tile.common.dsl import Builder, dispatch_between
from pypto_plugins.ops_tile.common.shapes import static_shape
from pypto_plugins.ops_tile.common.views import VEC_RESULT, relayout_view, vec_operands

family = OpFamily("padding", semantics="pypto_plugins.ops_tile.semantics.padding")


# -- type rules ---------------------------------------------------------------------------------------------
def _pad(op: str, kwargs: Mapping[str, Any]) -> PadValue:
    pad = kwargs.get("pad_value", PadValue.zero)
    if pad is PadValue.null:
        raise ValueError(f"{op}: pad_value must be zero, max or min, not null (nothing to fill with)")
    return pad


def _expand_shape(op: str, e: Expr, src_shape: Sequence[Expr]) -> list[Expr]:
    shape = static_shape(op, e)
    if len(shape) != len(src_shape):
        raise TypeError(f"{op}: shape {shape_text(shape)} must have the source's rank {len(src_shape)}")
    for d, s in zip(shape, src_shape):
        sv = static_int(s)
        if sv is not None and static_int(d) < sv:  # type: ignore[operator]
            raise ValueError(f"{op}: shape {shape_text(shape)} must be no smaller than the source "
                             f"{shape_text(src_shape)} in every dim")
    return shape


def tile_fillpad_deducer(op: str) -> Any:
    def deduce(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
        src = require_tile(op, args[0], "the tile")
        pad = _pad(op, kwargs)
        view = src.effective_view().with_fields(valid_shape=(), pad=pad)
        return TileType(src.shape, src.dtype, src.memref, view, MemorySpace.Vec)  # type: ignore[arg-type]

    return deduce


def deduce_tile_fillpad_expand(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tile.fillpad_expand"
    src = require_tile(op, args[0], "the tile")
    pad = _pad(op, kwargs)
    shape = _expand_shape(op, args[1], src.shape)
    view = relayout_view(src, (), shape)
    return TileType(shape, src.dtype, src.memref, view.with_fields(pad=pad), MemorySpace.Vec)  # type: ignore[union-attr]


def _tensor_pad_view(src: TensorType, pad: PadValue) -> TensorView:
    layout = src.tensor_view.layout if src.tensor_view is not None else None
    stride = src.tensor_view.stride if src.tensor_view is not None else None
    return TensorView(stride=stride, layout=layout, pad=pad)


def deduce_tensor_fillpad(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tensor.fillpad"
    src = require_tensor(op, args[0], "the tensor")
    return TensorType(src.shape, src.dtype, src.memref, _tensor_pad_view(src, _pad(op, kwargs)))


def deduce_tensor_fillpad_expand(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tensor.fillpad_expand"
    src = require_tensor(op, args[0], "the tensor")
    pad = _pad(op, kwargs)
    return TensorType(_expand_shape(op, args[1], src.shape), src.dtype, None, TensorView(pad=pad))


# -- ops ----------------------------------------------------------------------------------------------------
_PAD = KwargSpec("pad_value", (PadValue,), PadValue.zero, recorded=True)
_IN_VEC = vec_operands(0)

family.op(OpDef("tile.fillpad", tile_fillpad_deducer("tile.fillpad"), args=(ArgSpec("tile"),), kwargs=(_PAD,),
                input_memory=_IN_VEC, output_memory=VEC_RESULT,
                doc="The tile with the elements outside its valid region set to the pad value; all valid."))
family.op(OpDef("tile.fillpad_inplace", tile_fillpad_deducer("tile.fillpad_inplace"), args=(ArgSpec("tile"),),
                kwargs=(_PAD,), effects={0: Effect.READ_WRITE}, input_memory=_IN_VEC, output_memory=VEC_RESULT,
                doc="fillpad written into the operand's own buffer."))
family.op(OpDef("tile.fillpad_expand", deduce_tile_fillpad_expand, args=(ArgSpec("tile"), ArgSpec("shape")),
                kwargs=(_PAD,), input_memory=_IN_VEC, output_memory=VEC_RESULT, traits=OpTraits(shape_args=(1,)),
                doc="The tile's valid region at the origin of a bigger tile of `shape`, the rest the pad value."))
family.op(OpDef("tensor.fillpad", deduce_tensor_fillpad, args=(ArgSpec("tensor"),), kwargs=(_PAD,),
                doc="The tensor with the elements outside its valid region set to the pad value; all valid."))
family.op(OpDef("tensor.fillpad_expand", deduce_tensor_fillpad_expand, args=(ArgSpec("tensor"), ArgSpec("shape")),
                kwargs=(_PAD,), traits=OpTraits(shape_args=(1,)),
                doc="The tensor's valid region at the origin of a bigger tensor of `shape`, the rest the pad value."))


# -- tile forms ----------------------------------------------------------------------------------------------
family.implement("tile_form", "tensor.fillpad", TileForm(op="tile.fillpad"))
family.implement("tile_form", "tensor.fillpad_expand", TileForm(op="tile.fillpad_expand"))


# -- DSL ----------------------------------------------------------------------------------------------------
def to_pad_value(value: Any) -> PadValue:
    """A pl.PadValue or its name."""
    if isinstance(value, str):
        return PadValue[value]
    if not isinstance(value, PadValue):
        raise TypeError(f"pad_value must be a pl.PadValue (zero, max, min), got {value!r}")
    return value


def fillpad_builder(op: str) -> Builder:
    def build(x: Expr, pad_value: Any = PadValue.zero, span: Span | None = None) -> Call:
        return create_op_call(op, [x], {"pad_value": to_pad_value(pad_value)}, span=span)

    build.__name__ = op.split(".")[1]
    return dsl_entry(build)


def fillpad_expand_builder(op: str) -> Builder:
    def build(x: Expr, shape: Any, pad_value: Any = PadValue.zero, span: Span | None = None) -> Call:
        return create_op_call(op, [x, to_tuple(shape, span)], {"pad_value": to_pad_value(pad_value)}, span=span)

    build.__name__ = op.split(".")[1]
    return dsl_entry(build)


_TILE = {"fillpad": fillpad_builder("tile.fillpad"), "fillpad_inplace": fillpad_builder("tile.fillpad_inplace"),
         "fillpad_expand": fillpad_expand_builder("tile.fillpad_expand")}
_TENSOR = {"fillpad": fillpad_builder("tensor.fillpad"), "fillpad_expand": fillpad_expand_builder("tensor.fillpad_expand")}
for _name, _fn in _TILE.items():
    family.dsl_function(f"tile.{_name}", _fn)
for _name, _fn in _TENSOR.items():
    family.dsl_function(f"tensor.{_name}", _fn)
for _name in ("fillpad", "fillpad_expand"):
    family.dsl_function(_name, dispatch_between(_name, _TILE[_name], _TENSOR[_name]))


# Memory planning facts (docs/memory_planning.md): where a result's buffer lives, which operands it must not share.
family.set_traits("tile.fillpad_inplace", output_reuses_input=0)
family.set_traits("tile.fillpad_expand", output_must_not_alias="all")

"""Tensor creation, views and element access (docs/reference/ops.md).

IR layouts:
* `tensor.create(shape)` kwargs `dtype`, `layout` (+ `manual_dep`, `init_value` when given).
* `tensor.full(shape, value)` kwarg `dtype` (printed like tile.full).
* `tensor.slice(t, shape, offset[, valid_shape[, drop_dims]])` kwargs `pad_value`, `clamp`.
* `tensor.reshape(t, shape)`, `tensor.transpose(t, axis1, axis2)`, `tensor.reinterpret_view(t[, shape])`
  (kwarg `dtype`), `tensor.dim(t, axis)` -> Scalar[INDEX] (OPS.md), `tensor.read(t, indices)` -> Scalar,
  `tensor.write(t, indices, value)` (arg 0 Write), `tensor.assemble(target, source, offset)` (kwarg
  `atomic`; arg 0 Write, ReadWrite when atomic=Add), `tensor.expand_clone(input, target)` (arg 1 Write).

`tensor.transpose` (OPS.md): the result views the source's memory: its strides are the source's, swapped
(recorded unless row-major), and swapping the last two axes flips ND <-> DN, so `transpose(x, 0, 1)` of
a [M, N] tensor is `Tensor[[N, M], dtype, TensorView(stride=[1, N], layout=DN)]` (issue 13). An
optional 4th operand gives the valid shape in the result's order.

Choices of pypto's own, where PyPTO's documents are silent: a non-ND `layout` of tensor.create is recorded in the TensorView;
tensor.slice past the source's end is an error unless `clamp=True`, which narrows the valid region
instead; drop_dims removes extent-1 dims (no 2-D clamp for tensors); tensor.write returns the
tensor's type so that it can be rebound; tensor.assemble writes the whole source.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import AtomicType, PadValue, TensorLayout
from pypto_core.ir.expr import Call, ConstInt, Expr
from pypto_core.ir.types import ScalarType, TensorType, TensorView, Type, dims_equal
from pypto_core.ops.build import (
    check_window,
    dims_product,
    promote_dtypes,
    require_scalar,
    require_tensor,
    same_dim,
    shape_text,
    static_dims,
    static_int,
    tuple_elements,
)
from pypto_core.ops.opdef import ArgSpec, Effect, KwargSpec, OpDef, OpTraits
from pypto_core.ops.tile_form import TileForm, TileLowering
from pypto_plugins.ops_tile.ops.shapes import (
    check_atomic_dtype,
    check_indices,
    clip_valid,
    product,
    rescale_extent,
    shape_operand,
    wunion,
)


def tensor_valid(t: TensorType) -> tuple[Expr, ...]:
    return t.tensor_view.valid_shape if t.tensor_view is not None and t.tensor_view.valid_shape else t.shape


def with_valid(src: TensorType, shape: Sequence[Expr], valid: Sequence[Expr], dtype: DataType | None = None) -> TensorType:
    """A result of `shape` whose valid region is `valid` (the view is dropped when it says nothing)."""
    view = None
    if not dims_equal(valid, shape):
        layout = src.tensor_view.layout if src.tensor_view is not None else None
        view = TensorView(layout=layout, valid_shape=list(valid))
    return TensorType(shape, dtype or src.dtype, None, view)


def deduce_create(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    shape = shape_operand("tensor.create", args[0])
    layout = kwargs.get("layout", TensorLayout.ND)
    view = TensorView(layout=layout) if layout is not TensorLayout.ND else None
    return TensorType(shape, kwargs["dtype"], None, view)


def deduce_full(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    shape = shape_operand("tensor.full", args[0])
    value = require_scalar("tensor.full", args[1], "the fill value")
    if value.dtype.is_float() and not kwargs["dtype"].is_float():
        raise TypeError(f"tensor.full: a float value cannot fill a {kwargs['dtype'].name} tensor")
    return TensorType(shape, kwargs["dtype"])


def deduce_slice(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
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


def deduce_reshape(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
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


def reshape_valid(valid: Sequence[Expr], old: Sequence[Expr], new: Sequence[Expr]) -> list[Expr] | None:
    """OPS.md RESHAPE_VALID: the new shape for a fully valid source; else the valid region mapped through a
    row-major reshape that only merges / splits whole trailing dims or adds / removes unit dims (None when
    it is no box of the new shape)."""
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


def row_major_strides(shape: Sequence[Expr]) -> list[Expr]:
    """Element strides of a packed row-major tensor: the product of the dims to the right of each."""
    return [dims_product(shape[i + 1:]) for i in range(len(shape))]


def _strides(t: TensorType) -> list[Expr]:
    """The element strides a tensor addresses its memory with: its view's, else its layout's packed ones."""
    view = t.tensor_view
    if view is not None and view.stride:
        return list(view.stride)
    if view is not None and view.layout is TensorLayout.DN and len(t.shape) >= 2:
        # DN stores the last two axes column-major: the strides of the swapped shape, swapped back.
        physical = [*t.shape[:-2], t.shape[-1], t.shape[-2]]
        strides = row_major_strides(physical)
        return [*strides[:-2], strides[-1], strides[-2]]
    return row_major_strides(t.shape)


_FLIPPED = {TensorLayout.ND: TensorLayout.DN, TensorLayout.DN: TensorLayout.ND}


def _transpose_axes(args: Sequence[Expr], rank: int) -> tuple[int, int]:
    axes = []
    for e in args[1:3]:
        a = static_int(e)
        if a is None or not -rank <= a < rank:
            raise ValueError(f"tensor.transpose: axes must be constants in range for a {rank}-D tensor")
        axes.append(a % rank)
    if axes[0] == axes[1]:
        raise ValueError(f"tensor.transpose: the two axes must differ, got {axes[0]} twice")
    return axes[0], axes[1]


def deduce_transpose(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tensor.transpose"
    src = require_tensor(op, args[0], "the source")
    rank = len(src.shape)
    if rank < 2:
        raise TypeError(f"{op}: the source must be at least 2-D, got {shape_text(src.shape)}")
    layout = src.tensor_view.layout if src.tensor_view is not None and src.tensor_view.layout else TensorLayout.ND
    if layout in (TensorLayout.MX_A_ZZ, TensorLayout.MX_B_NN):
        raise TypeError(f"{op}: a tensor with the {layout.name} layout cannot be transposed")
    a, b = _transpose_axes(args, rank)
    shape, strides, valid = list(src.shape), _strides(src), list(tensor_valid(src))
    for dims in (shape, strides, valid):
        dims[a], dims[b] = dims[b], dims[a]
    if len(args) > 3:
        valid = list(tuple_elements(args[3]))
        if len(valid) != rank:
            raise TypeError(f"{op}: valid_shape has {len(valid)} dims for a {rank}-D result")
    if {a, b} == {rank - 2, rank - 1}:
        layout = _FLIPPED.get(layout, layout)
    packed = layout is TensorLayout.ND and dims_equal(strides, row_major_strides(shape))
    pad = src.tensor_view.pad if src.tensor_view is not None else PadValue.null
    if packed and pad is PadValue.null and dims_equal(valid, shape):
        return TensorType(shape, src.dtype)
    return TensorType(shape, src.dtype, None, TensorView(stride=None if packed else strides, layout=layout,
                                                         valid_shape=valid, pad=pad))


def deduce_reinterpret_view(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
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


def deduce_dim(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    src = require_tensor("tensor.dim", args[0], "the operand")
    axis = static_int(args[1])
    if axis is None or not -len(src.shape) <= axis < len(src.shape):
        raise ValueError(f"tensor.dim: the axis must be a constant in range for a {len(src.shape)}-D tensor")
    return ScalarType(DataType.INDEX)  # OPS.md tensor.dim: "Scalar[INDEX]"


def deduce_read(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    src = require_tensor("tensor.read", args[0], "the operand")
    check_indices("tensor.read", args[1], len(src.shape))
    return ScalarType(src.dtype)


def deduce_write(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    dst = require_tensor("tensor.write", args[0], "the target")
    check_indices("tensor.write", args[1], len(dst.shape))
    require_scalar("tensor.write", args[2], "the value")
    return dst


def deduce_assemble(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tensor.assemble"
    target = require_tensor(op, args[0], "the target")
    source = require_tensor(op, args[1], "the source")
    offsets = tuple_elements(args[2])
    if len(offsets) != len(target.shape) or len(source.shape) > len(target.shape):
        raise TypeError(f"{op}: {len(offsets)} offsets and a {len(source.shape)}-D source for a "
                        f"{len(target.shape)}-D target")
    if source.dtype is not target.dtype:
        raise TypeError(f"{op}: the source is {source.dtype.name} but the target is {target.dtype.name}")
    check_window(op, "writes", offsets, source.shape, target.shape, "target")
    check_atomic_dtype(op, kwargs.get("atomic", 0), target.dtype)
    grown = wunion(target.shape, tensor_valid(target), tensor_valid(source), offsets)
    return target if grown is None else with_view_valid(target, grown)


def with_view_valid(t: TensorType, valid: Sequence[Expr]) -> TensorType:
    """The tensor type with another view valid region (no view when nothing is left to say)."""
    old = t.tensor_view or TensorView()
    if not old.stride and old.layout in (None, TensorLayout.ND) and old.pad is PadValue.null and \
            dims_equal(valid, t.shape):
        return TensorType(t.shape, t.dtype, t.memref)
    return TensorType(t.shape, t.dtype, t.memref,
                      TensorView(stride=old.stride, layout=old.layout, valid_shape=list(valid), pad=old.pad))


def deduce_expand_clone(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    """OPS.md: 3-D operands of equal rank; each input dim is the target's or 1, at most one is broadcast."""
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


def _expand_clone_in_gm(ctx: TileLowering, call: Call) -> Expr:
    """An expand_clone between GM tensors stays a GM op in the kernel; there is no tile form for tiles yet."""
    if ctx.is_gm(call.args[0]) and ctx.is_gm(call.args[1]):
        return call
    raise ValueError("tensor.expand_clone has no tile form for an operand computed on chip; expand the tensor "
                     "outside the pl.at scope, or pass both tensors in as parameters")


def write_effects(kwargs: Mapping[str, Any]) -> Mapping[int, Effect]:
    atomic = int(kwargs.get("atomic", 0)) == int(AtomicType.Add)
    return {0: Effect.READ_WRITE if atomic else Effect.WRITE}


OPDEFS = [
    OpDef("tensor.create", deduce_create, args=(ArgSpec("shape"),),
          kwargs=(KwargSpec("dtype", (DataType,), required=True), KwargSpec("layout", (TensorLayout,), TensorLayout.ND, recorded=True),
                  KwargSpec("manual_dep", (bool,), False), KwargSpec("init_value", (int, float))),
          traits=OpTraits(shape_args=(0,)), doc="A new tensor."),
    OpDef("tensor.full", deduce_full, args=(ArgSpec("shape"), ArgSpec("value")),
          kwargs=(KwargSpec("dtype", (DataType,), required=True),), traits=OpTraits(shape_args=(0,)),
          doc="A tensor filled with one value."),
    OpDef("tensor.slice", deduce_slice,
          args=(ArgSpec("input"), ArgSpec("shape"), ArgSpec("offset"), ArgSpec("valid_shape", optional=True),
                ArgSpec("drop_dims", optional=True)),
          kwargs=(KwargSpec("pad_value", (PadValue,), PadValue.null), KwargSpec("clamp", (bool,), False)),
          traits=OpTraits(read_address_args=(2,), shape_args=(1, 2, 3), aliases_operand=True),
          doc="A window of a tensor (a view)."),
    OpDef("tensor.reshape", deduce_reshape,
          args=(ArgSpec("input"), ArgSpec("shape"), ArgSpec("valid_shape", optional=True)),
          traits=OpTraits(shape_args=(1, 2), aliases_operand=True), doc="The same elements with another shape."),
    OpDef("tensor.transpose", deduce_transpose,
          args=(ArgSpec("input"), ArgSpec("axis1"), ArgSpec("axis2"), ArgSpec("valid_shape", optional=True)),
          traits=OpTraits(aliases_operand=True), doc="Swap two axes (a view of the same memory)."),
    OpDef("tensor.reinterpret_view", deduce_reinterpret_view, args=(ArgSpec("data"), ArgSpec("shape", optional=True)),
          kwargs=(KwargSpec("dtype", (DataType,), required=True),), traits=OpTraits(shape_args=(1,), aliases_operand=True),
          doc="The same bytes read as another dtype (and optionally shape)."),
    OpDef("tensor.dim", deduce_dim, args=(ArgSpec("tensor"), ArgSpec("axis")), traits=OpTraits(extent_query=True),
          doc="The extent of one axis."),
    OpDef("tensor.read", deduce_read, args=(ArgSpec("tensor"), ArgSpec("indices")),
          traits=OpTraits(shape_args=(1,)), doc="Read one element."),
    OpDef("tensor.write", deduce_write, args=(ArgSpec("tensor"), ArgSpec("indices"), ArgSpec("value")),
          effects={0: Effect.WRITE}, traits=OpTraits(shape_args=(1,)), doc="Write one element in place."),
    OpDef("tensor.assemble", deduce_assemble, args=(ArgSpec("target"), ArgSpec("source"), ArgSpec("offset")),
          kwargs=(KwargSpec("atomic", (int,), 0, choices=(0, 1)),), effects=write_effects,
          traits=OpTraits(shape_args=(2,)), doc="Write a tensor into a window of another tensor."),
    # OPS.md declares no effect; PyPTO's outliner counts it among the ops that write a captured tensor (docs/passes/outline_incore_scopes.md, parameters):
    # it writes its target (arg 1) whole, without reading it.
    OpDef("tensor.expand_clone", deduce_expand_clone, args=(ArgSpec("input"), ArgSpec("target")),
          effects={1: Effect.WRITE},
          doc="The target filled with the input broadcast along (at most) one dim; writes the target."),
]

# tensor.expand_clone lowers in GM: its tile form addresses the target tensor itself.
TILE_FORMS = {"tensor.expand_clone": TileForm(lower=_expand_clone_in_gm, gm_access=True)}

"""OpDefs of PyPTO ops added for issue 14 (views_alloc family); see OPS.md for each op's rules.

Allocation: tile.alloc / tensor.alloc (a Ptr in PyPTO; this IR has no PtrType, so the result is a
Scalar[INDEX] stand-in: the allocation's identity, 0 on the reference machine), tensor.create_l1 (a tensor
declared in L1; its tile form is a `tile.create` in Mat). Generators: tile.tri, tensor.ci, tensor.random.
Views / padding: tile / tensor concat, fillpad, fillpad_expand, tile.fillpad_inplace, tensor.set_validshape,
tensor.view.

Choices where OPS.md is silent:
* tile.tri: ones on and below diagonal `diagonal` (numpy tril; upper=True: on and above, numpy triu), zeros
  elsewhere, in the result dtype.
* concat: src0's columns, then src1's (numpy hstack of the whole tiles; poison in an operand's padding
  stays poison in the result, whose valid region is its whole shape).
* fillpad: the elements outside the operand's valid region become the pad value: zero -> 0; max / min ->
  +inf / -inf for floats, the dtype's largest / smallest integer for ints (pto-isa's PadValue::Max / Min).
* tensor.view: the source's memory (row-major for ND, the last two axes column-major for DN) re-read with
  the new shape and layout.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import MemorySpace, PadValue, TensorLayout
from pypto_core.ir.expr import Expr
from pypto_core.ir.types import ScalarType, TensorType, TensorView, TileType, Type, dims_equal
from pypto_core.ops.build import (
    dims_sum,
    require_dtype_in,
    require_rank,
    require_scalar,
    require_tensor,
    require_tile,
    same_dim,
    shape_text,
    static_dims,
    static_int,
    tuple_elements,
)
from pypto_core.ops.opdef import ArgSpec, CoreAffinity, Effect, KwargSpec, OpDef, OpTraits, OutputMemory
from pypto_plugins.ops_tile.ops.shapes import product
from pypto_plugins.ops_tile.ops.tensor_views import row_major_strides, tensor_valid
from pypto_plugins.ops_tile.ops.tile_generators import (
    check_ci_shape,
    check_ci_start,
    check_random,
    require_int32,
)
from pypto_plugins.ops_tile.ops.views import relayout_view, valid_view

PTR = ScalarType(DataType.INDEX)  # stand-in for PyPTO's Ptr (no PtrType in this IR)
_VEC = OutputMemory(fixed=MemorySpace.Vec)
_IN_VEC = (MemorySpace.Vec,)
_PAD = KwargSpec("pad_value", (PadValue,), PadValue.zero, recorded=True)
TRI_DTYPES = (DataType.INT8, DataType.UINT8, DataType.INT16, DataType.INT32, DataType.UINT16, DataType.UINT32,
              DataType.FP16, DataType.BF16, DataType.FP32)


# -- allocation -------------------------------------------------------------------------------------------
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


def static_shape(op: str, e: Expr, what: str = "shape") -> list[Expr]:
    """A shape operand of constant positive dims (OPS.md `ConstInt > 0`)."""
    dims = list(tuple_elements(e))
    if not dims:
        raise TypeError(f"{op}: {what} must have at least one dimension")
    for d in dims:
        v = static_int(d)
        if v is None:
            raise TypeError(f"{op}: {what} dims must be constants, got {shape_text(dims)}")
        if v <= 0:
            raise ValueError(f"{op}: {what} dims must be positive, got {shape_text(dims)}")
    return dims


def deduce_create_l1(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    return TensorType(static_shape("tensor.create_l1", args[0]), kwargs["dtype"])


# -- generators -------------------------------------------------------------------------------------------
def _static_valid(op: str, args: Sequence[Expr], index: int, shape: Sequence[Expr]) -> list[Expr]:
    """An optional static valid_shape operand (0 < v <= dim); [] when absent or empty."""
    valid = list(tuple_elements(args[index])) if len(args) > index else []
    if not valid:
        return []
    if len(valid) != len(shape):
        raise TypeError(f"{op}: valid_shape has {len(valid)} dims for a {len(shape)}-D shape")
    for v, d in zip(valid, shape):
        sv = static_int(v)
        if sv is None or not 0 < sv <= static_int(d):  # type: ignore[operator]
            raise ValueError(f"{op}: valid_shape {shape_text(valid)} must be constants in 1..dim of "
                             f"{shape_text(shape)}")
    return [] if dims_equal(valid, shape) else valid


def deduce_tri(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tile.tri"
    dtype = kwargs.get("dtype", DataType.INT32)
    require_dtype_in(op, dtype, TRI_DTYPES, "dtype")
    require_int32(op, args[0], "diagonal")
    shape = static_shape(op, args[1])
    require_rank(op, shape, 2, "shape")
    valid = _static_valid(op, args, 2, shape)
    return TileType(shape, dtype, None, valid_view(valid, shape, MemorySpace.Vec), MemorySpace.Vec)


def deduce_tensor_ci(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tensor.ci"
    dtype = kwargs.get("dtype", DataType.INT32)
    check_ci_start(op, args[0], dtype)
    shape = list(tuple_elements(args[1]))
    check_ci_shape(op, shape)
    return TensorType(shape, dtype)


def deduce_tensor_random(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tensor.random"
    dtype = check_random(op, args, kwargs)
    shape = list(tuple_elements(args[6]))
    require_rank(op, shape, 2, "shape")
    return TensorType(shape, dtype)


# -- concat -----------------------------------------------------------------------------------------------
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


# -- fillpad ----------------------------------------------------------------------------------------------
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


def _deduce_tile_fillpad(op: str):
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


# -- tensor views -----------------------------------------------------------------------------------------
def deduce_tensor_set_validshape(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tensor.set_validshape"
    src = require_tensor(op, args[0], "the tensor")
    require_rank(op, src.shape, 2, "the tensor")
    extents = []
    for i, (e, what) in enumerate(((args[1], "valid_rows"), (args[2], "valid_cols"))):
        if not require_scalar(op, e, what).dtype.is_int():
            raise TypeError(f"{op}: {what} must be an integer, got {e.type}")
        v, limit = static_int(e), static_int(src.shape[i])
        if v is not None and (v < 0 or (limit is not None and v > limit)):
            raise ValueError(f"{op}: {what} = {v} is outside 0..{limit} (the tensor is {shape_text(src.shape)})")
        extents.append(e)
    old = src.tensor_view or TensorView()
    view = TensorView(stride=old.stride, layout=old.layout, valid_shape=extents, pad=old.pad)
    return TensorType(src.shape, src.dtype, src.memref, view)


_VIEW_LAYOUTS = (TensorLayout.ND, TensorLayout.DN)


def _layout(t: TensorType) -> TensorLayout:
    return t.tensor_view.layout if t.tensor_view is not None and t.tensor_view.layout else TensorLayout.ND


def _packed(t: TensorType) -> bool:
    stride = t.tensor_view.stride if t.tensor_view is not None else ()
    if not stride:
        return True
    logical = list(t.shape) if _layout(t) is TensorLayout.ND else [*t.shape[:-2], t.shape[-1], t.shape[-2]]
    packed = row_major_strides(logical)
    if _layout(t) is TensorLayout.DN:
        packed = [*packed[:-2], packed[-1], packed[-2]]
    return dims_equal(stride, packed)


def deduce_tensor_view(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tensor.view"
    src = require_tensor(op, args[0], "the input")
    old = _layout(src)
    layout = kwargs.get("layout") or old
    for what, lay in (("the input", old), ("layout", layout)):
        if lay not in _VIEW_LAYOUTS:
            raise TypeError(f"{op}: {what} has layout {lay.name}; only ND and DN tensors can be viewed")
    shape_given = len(args) > 1 and bool(tuple_elements(args[1]))
    valid_given = len(args) > 2 and bool(tuple_elements(args[2]))
    if not shape_given:
        if valid_given:
            raise TypeError(f"{op}: valid_shape needs a shape (it is only for a collapse to 2-D)")
        shape, valid = list(src.shape), list(tensor_valid(src))
        if layout is not old:
            if len(shape) < 2:
                raise TypeError(f"{op}: a layout change needs at least 2 dims, got {shape_text(shape)}")
            shape[-2], shape[-1] = shape[-1], shape[-2]
            valid[-2], valid[-1] = valid[-1], valid[-2]
    else:
        shape = list(tuple_elements(args[1]))
        if not _packed(src):
            raise TypeError(f"{op}: a new shape needs a packed (contiguous) input")
        a, b = static_dims(src.shape), static_dims(shape)
        if a is not None and b is not None and product(a) != product(b):
            raise TypeError(f"{op}: cannot view {shape_text(src.shape)} ({product(a)} elements) as "
                            f"{shape_text(shape)} ({product(b)} elements)")
        partial = not dims_equal(tensor_valid(src), src.shape)
        if valid_given:
            valid = list(tuple_elements(args[2]))
            if len(valid) != 2 or len(shape) != 2 or len(src.shape) <= 2 or \
                    not all(map(same_dim, src.shape[-1:], shape[-1:])):
                raise TypeError(f"{op}: valid_shape is only for collapsing the leading axes of an N-D input to "
                                f"2-D (last dim kept); got {shape_text(src.shape)} -> {shape_text(shape)}")
        elif partial:
            raise TypeError(f"{op}: the input is only partly valid ({shape_text(tensor_valid(src))} of "
                            f"{shape_text(src.shape)}); give valid_shape or view the whole tensor")
        else:
            valid = shape
    lay = None if layout is TensorLayout.ND else layout
    if lay is None and dims_equal(valid, shape):
        return TensorType(shape, src.dtype, src.memref)
    return TensorType(shape, src.dtype, src.memref, TensorView(layout=lay, valid_shape=valid))


OPDEFS = [
    OpDef("tile.alloc", deduce_tile_alloc, args=(ArgSpec("memory_space"), ArgSpec("size")),
          kwargs=(KwargSpec("pinned", (bool,), False),), affinity=CoreAffinity.VECTOR,
          doc="Declare an on-chip buffer of `size` bytes in `memory_space` (a Ptr; Scalar[INDEX] here)."),
    OpDef("tensor.alloc", deduce_tensor_alloc, args=(ArgSpec("memory_space"), ArgSpec("size")),
          doc="Declare a DDR buffer of `size` bytes (a Ptr; Scalar[INDEX] here)."),
    OpDef("tensor.create_l1", deduce_create_l1, args=(ArgSpec("shape"),),
          kwargs=(KwargSpec("dtype", (DataType,), required=True), KwargSpec("transpose", (bool,), False)),
          traits=OpTraits(shape_args=(0,)),
          doc="An uninitialised tensor in L1 (Mat); lowered to tile.create in Mat."),
    OpDef("tile.tri", deduce_tri, args=(ArgSpec("diagonal"), ArgSpec("shape"), ArgSpec("valid_shape", optional=True)),
          kwargs=(KwargSpec("dtype", (DataType,), DataType.INT32, recorded=True),
                  KwargSpec("upper", (bool,), False, recorded=True)),
          output_memory=_VEC, traits=OpTraits(shape_args=(1, 2)),
          doc="A triangular 0/1 matrix: ones on and below the `diagonal`-th diagonal (on and above if upper)."),
    OpDef("tensor.ci", deduce_tensor_ci, args=(ArgSpec("start"), ArgSpec("shape")),
          kwargs=(KwargSpec("dtype", (DataType,), DataType.INT32, recorded=True),
                  KwargSpec("descending", (bool,), False)),
          traits=OpTraits(shape_args=(1,)),
          doc="start, start+1, ... (or descending) along the last axis of a tensor."),
    OpDef("tensor.random", deduce_tensor_random,
          args=(ArgSpec("key0"), ArgSpec("key1"), ArgSpec("counter0"), ArgSpec("counter1"), ArgSpec("counter2"),
                ArgSpec("counter3"), ArgSpec("shape")),
          kwargs=(KwargSpec("dtype", (DataType,), DataType.UINT32, recorded=True),
                  KwargSpec("rounds", (int,), 10, choices=(7, 10))),
          traits=OpTraits(shape_args=(6,)),
          doc="Counter-based random integers (Philox4x32: key key0/key1, counter counter0..3) in a 2-D tensor."),
    OpDef("tile.concat", deduce_tile_concat, args=(ArgSpec("src0"), ArgSpec("src1")),
          input_memory={0: _IN_VEC, 1: _IN_VEC}, output_memory=_VEC,
          doc="src0's columns followed by src1's: [rows, c0 + c1]."),
    OpDef("tensor.concat", deduce_tensor_concat, args=(ArgSpec("src0"), ArgSpec("src1")),
          doc="src0's columns followed by src1's: [rows, c0 + c1]."),
    OpDef("tile.fillpad", _deduce_tile_fillpad("tile.fillpad"), args=(ArgSpec("tile"),), kwargs=(_PAD,),
          input_memory={0: _IN_VEC}, output_memory=_VEC,
          doc="The tile with the elements outside its valid region set to the pad value; all valid."),
    OpDef("tile.fillpad_inplace", _deduce_tile_fillpad("tile.fillpad_inplace"), args=(ArgSpec("tile"),),
          kwargs=(_PAD,), effects={0: Effect.READ_WRITE}, input_memory={0: _IN_VEC}, output_memory=_VEC,
          doc="fillpad written into the operand's own buffer."),
    OpDef("tile.fillpad_expand", deduce_tile_fillpad_expand, args=(ArgSpec("tile"), ArgSpec("shape")),
          kwargs=(_PAD,), input_memory={0: _IN_VEC}, output_memory=_VEC, traits=OpTraits(shape_args=(1,)),
          doc="The tile's valid region at the origin of a bigger tile of `shape`, the rest the pad value."),
    OpDef("tensor.fillpad", deduce_tensor_fillpad, args=(ArgSpec("tensor"),), kwargs=(_PAD,),
          doc="The tensor with the elements outside its valid region set to the pad value; all valid."),
    OpDef("tensor.fillpad_expand", deduce_tensor_fillpad_expand, args=(ArgSpec("tensor"), ArgSpec("shape")),
          kwargs=(_PAD,), traits=OpTraits(shape_args=(1,)),
          doc="The tensor's valid region at the origin of a bigger tensor of `shape`, the rest the pad value."),
    OpDef("tensor.set_validshape", deduce_tensor_set_validshape,
          args=(ArgSpec("tensor"), ArgSpec("valid_rows"), ArgSpec("valid_cols")), traits=OpTraits(aliases_operand=True),
          doc="The same tensor (a view) with valid region [valid_rows, valid_cols]."),
    OpDef("tensor.view", deduce_tensor_view,
          args=(ArgSpec("input"), ArgSpec("shape", optional=True), ArgSpec("valid_shape", optional=True)),
          kwargs=(KwargSpec("layout", (TensorLayout,), None),), traits=OpTraits(shape_args=(1, 2), aliases_operand=True),
          doc="The same memory viewed with another shape and/or layout (ND <-> DN swaps the last two axes)."),
]

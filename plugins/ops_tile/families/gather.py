"""Gathers from a tile or a tensor: tile.gather / gatherb / gather_compare / gather_mask and tensor.gather /
gather_compare / gather_mask (the gathers that address global memory -- gather_row, mgather, paged_gather --
are gm_gather.py), and the top-level `pl.gather` and `pl.tile.MaskPattern`.

IR layouts (docs/reference/ops.md):
* `tile.gather(src, indices, tmp)`: out[i, j] = src.flat[indices[i, j]] (row-major flat index into src; INT32
  indices, or INT16 with 16-bit data); the result has the indices' shape.
* `tile.gatherb(src, offset)` kwarg `output_dtype`: 32-byte block k of result row i is the 32 bytes of src at
  byte offset offset[i, k] (UINT32 offsets, a static column count that is a multiple of 8), read as
  output_dtype: the result is [rows, cols * 32 / bytes].
* `tile.gather_compare(src, kvalue, tmp)` kwargs `cmp_mode` (0..5 = eq ne lt le gt ge), `offset`, `out_cols`,
  `count_dtype` (INT32 / UINT32): per row, the column indices (+ offset) of the valid elements that compare true
  against kvalue (of src's dtype), packed left into [rows, out_cols] INT32 (poison after them), and the [1,
  rows] counts; `tensor.gather_compare(input, kvalue)` alike over the whole rows.
* `tile.gather_mask(src)` kwargs `mask_pattern` (pl.tile.MaskPattern: P0101 even columns, P1010 odd, P0001 ..
  P1000 column k of 4, P1111 all), `output_dtype` (same bit width: a reinterpretation): the selected columns
  packed left; `tensor.gather_mask(input)` alike.
* `tensor.gather(input, index)` kwarg `dim`: torch.gather along `dim` (rank >= 2; index extents beyond the
  gathered dim within input's).

`pl.gather` is PyPTO's tensor spelling (`pl.gather(input, dim, index, *, mask_pattern=..., kvalue=...)`); on a
tile it builds the tile ops (`pl.gather(src, indices, tmp)`, with mask_pattern -> tile.gather_mask, with
kvalue -> tile.gather_compare(src, kvalue, tmp)). The printed form writes operands in IR order and kwargs by
name (`pl.tensor.gather(x, index, dim=1)`); an operand's kind tells the forms apart.

Lanes: gather / gatherb read their table as an IndexAddressedSource (docs/passes/lower_auto_vector_split.md),
tmp operands are Scratch. Memory: every tile operand is read from Vec and the result is Vec. An index outside
the source is a MachineError, not a silent wrap; only indices inside the index tile's valid region are read
(an empty lane's replay holds poison there), the results there are poison.

Tile forms: tensor.gather is tile.gather on flat row-major indices built from the index tile and a tile.ci
ramp; tensor.gather_compare takes a UINT8 scratch of the input's shape; tensor.gather_mask is tile.gather_mask.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import MemorySpace
from pypto_core.ir.expr import Call, ConstInt, Expr, MakeTuple
from pypto_core.ir.span import Span
from pypto_core.ir.types import TensorType, TileType, TupleType, Type
from pypto_core.ops.build import (
    dsl_entry,
    operand_kind,
    require_dtype_in,
    require_rank,
    require_scalar,
    require_tensor,
    require_tile,
    shape_text,
    static_int,
    to_dtype,
    to_int,
)
from pypto_core.ops.family import OpFamily
from pypto_core.ops.opdef import ArgSpec, KwargSpec, LaneCategory, OpDef
from pypto_core.ops.registry import create_op_call
from pypto_core.ops.tile_form import TileForm, TileLowering
from pypto_plugins.ops_tile.common import indexing as R
from pypto_plugins.ops_tile.common.dsl import (
    dim_first,
    dispatch_between,
    registered,
    scalar_for,
    set_if,
    tile_only,
    to_cmp_mode,
)
from pypto_plugins.ops_tile.common.gather_rank3 import lower_rank3_gather
from pypto_plugins.ops_tile.common.tile_forms import bound, flat_index, static_2d, tile_type
from pypto_plugins.ops_tile.common.views import VEC_RESULT, is_partial, row_major, valid_view, vec_operands

family = OpFamily("gather", semantics="pypto_plugins.ops_tile.semantics.gather")

D = DataType


# -- type rules ---------------------------------------------------------------------------------------------
def _index_tile(op: str, e: Expr, what: str) -> TileType:
    t = require_tile(op, e, what)
    if not t.dtype.is_int():
        raise TypeError(f"{op}: {what} must hold integers, got {t.dtype.name}")
    return t


def deduce_tile_gather(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tile.gather"
    src = require_tile(op, args[0], "src")
    require_dtype_in(op, src.dtype, R.GATHER_DTYPES, "src")
    idx = _index_tile(op, args[1], "indices")
    R.gather_index_dtype(op, src.dtype, idx.dtype, "indices")
    require_tile(op, args[2], "tmp")
    return TileType(idx.shape, src.dtype, None, None, None)  # valid = indices.shape


def deduce_gatherb(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tile.gatherb"
    src = require_tile(op, args[0], "src")
    require_rank(op, src.shape, 2, "src")
    require_dtype_in(op, src.dtype, R.GATHERB_DTYPES, "src")
    out = kwargs.get("output_dtype") or src.dtype
    require_dtype_in(op, out, R.GATHERB_DTYPES, "output_dtype")
    off = require_tile(op, args[1], "offset")
    require_rank(op, off.shape, 2, "offset")
    cols = static_int(off.shape[1])
    if off.dtype is not DataType.UINT32:
        raise TypeError(f"{op}: offset must be UINT32 byte offsets, got {off.dtype.name}")
    if cols is None or cols % 8:
        raise TypeError(f"{op}: offset must have a static column count that is a multiple of 8, got "
                        f"{shape_text(off.shape)}")
    per_block = 32 // (out.get_bit() // 8)  # each offset fills one 32-byte block of the result
    shape = [off.shape[0], ConstInt(cols * per_block)]
    valid = None
    if is_partial(off):
        vr, vc = off.valid_shape
        vcn = static_int(vc)
        valid = [vr, ConstInt(vcn * per_block) if vcn is not None else vc * per_block]
    return TileType(shape, out, None, valid_view(valid, shape, MemorySpace.Vec), None)


def gather_compare_rows(op: str, src: Any, kvalue: Expr, kwargs: Mapping[str, Any]) -> Expr:
    """The checks tile.gather_compare and tensor.gather_compare share; returns the row count."""
    require_rank(op, src.shape, 2, "input" if op.startswith("tensor") else "src")
    require_dtype_in(op, src.dtype, R.GATHER_DTYPES, "input" if op.startswith("tensor") else "src")
    k = require_scalar(op, kvalue, "kvalue")
    if k.dtype is not src.dtype:
        raise TypeError(f"{op}: kvalue is {k.dtype.name} but must be the source dtype {src.dtype.name}")
    mode, out_cols = kwargs.get("cmp_mode"), kwargs.get("out_cols")
    if mode is None or not 0 <= int(mode) <= 5:
        raise ValueError(f"{op}: cmp_mode 0..5 (eq, ne, lt, le, gt, ge) is required, got {mode}")
    if out_cols is None or int(out_cols) <= 0:
        raise ValueError(f"{op}: out_cols > 0 is required, got {out_cols}")
    count = kwargs.get("count_dtype")
    if count is not None:
        require_dtype_in(op, count, R.COUNT_DTYPES, "count_dtype")
    return src.shape[0]


def deduce_tile_gather_compare(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tile.gather_compare"
    src = require_tile(op, args[0], "src")
    rows = gather_compare_rows(op, src, args[1], kwargs)
    require_tile(op, args[2], "tmp")
    count = kwargs.get("count_dtype") or DataType.INT32
    dst = TileType([rows, ConstInt(int(kwargs["out_cols"]))], DataType.INT32, None, None, MemorySpace.Vec)
    cdst = TileType([ConstInt(1), rows], count, None, None, MemorySpace.Vec)
    return TupleType([dst, cdst])


def deduce_tensor_gather_compare(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tensor.gather_compare"
    src = require_tensor(op, args[0], "input")
    rows = gather_compare_rows(op, src, args[1], kwargs)
    count = kwargs.get("count_dtype") or D.INT32
    return TupleType([TensorType([rows, ConstInt(int(kwargs["out_cols"]))], D.INT32),
                      TensorType([ConstInt(1), rows], count)])


def deduce_tile_gather_mask(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tile.gather_mask"
    src = require_tile(op, args[0], "src")
    require_rank(op, src.shape, 2, "src")
    require_dtype_in(op, src.dtype, R.GATHER_DTYPES, "src")
    cols = R.gathered_cols(op, src.shape[1], int(kwargs["mask_pattern"]))
    dtype = R.same_bits_dtype(op, src.dtype, kwargs.get("output_dtype"))
    return TileType([src.shape[0], cols], dtype, None, None, None)


def deduce_tensor_gather_mask(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tensor.gather_mask"
    src = require_tensor(op, args[0], "input")
    require_rank(op, src.shape, 2, "input")
    require_dtype_in(op, src.dtype, R.GATHER_DTYPES, "input")
    pattern = kwargs.get("mask_pattern")
    if pattern is None:
        raise ValueError(f"{op}: mask_pattern is required")
    cols = R.gathered_cols(op, src.shape[1], int(pattern))
    return TensorType([src.shape[0], cols], R.same_bits_dtype(op, src.dtype, kwargs.get("output_dtype")))


def deduce_tensor_gather(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tensor.gather"
    src, index = require_tensor(op, args[0], "input"), require_tensor(op, args[1], "index")
    require_dtype_in(op, src.dtype, R.GATHER_DTYPES, "input")
    if len(src.shape) < 2:
        raise TypeError(f"{op}: input must have rank >= 2, got {shape_text(src.shape)}")
    R.gather_index_dtype(op, src.dtype, index.dtype, "index")
    if len(index.shape) != len(src.shape):
        raise TypeError(f"{op}: index {shape_text(index.shape)} must have input's rank ({len(src.shape)})")
    axis = R.dim_axis(op, kwargs.get("dim"), len(src.shape))
    for a, (i, s) in enumerate(zip(index.shape, src.shape)):
        ni, ns = static_int(i), static_int(s)
        if a != axis and ni is not None and ns is not None and ni > ns:
            raise TypeError(f"{op}: index extent {ni} on dim {a} exceeds input's {ns}")
    return TensorType(index.shape, src.dtype)


# -- ops ----------------------------------------------------------------------------------------------------
_SRC = LaneCategory.INDEX_ADDRESSED_SOURCE
_MASK_PATTERN = KwargSpec("mask_pattern", (int,), required=True, choices=tuple(R.MASK_SELECT))

family.op(OpDef("tile.gather", deduce_tile_gather, args=(ArgSpec("src"), ArgSpec("indices"), ArgSpec("tmp")),
                lane_invariant={0: _SRC, 2: LaneCategory.SCRATCH}, output_memory=VEC_RESULT,
                input_memory=vec_operands(0, 1, 2),
                doc="TGATHER: out[i, j] = src.flat[indices[i, j]] (row-major flat index into src)."),
          dsl="tile.gather")
family.op(OpDef("tile.gatherb", deduce_gatherb, args=(ArgSpec("src"), ArgSpec("offset")),
                kwargs=(KwargSpec("output_dtype", (DataType,)),), lane_invariant={0: _SRC}, output_memory=VEC_RESULT,
                input_memory=vec_operands(0, 1),
                doc="TGATHERB: 32-byte block k of each row is the 32 bytes of src at byte offset offset[i, k] "
                    "(bytes reinterpreted as output_dtype)."), dsl="tile.gatherb")
family.op(OpDef("tile.gather_compare", deduce_tile_gather_compare,
                args=(ArgSpec("src"), ArgSpec("kvalue"), ArgSpec("tmp")),
                kwargs=(KwargSpec("cmp_mode", (int,), required=True), KwargSpec("offset", (int,), 0),
                        KwargSpec("out_cols", (int,), required=True), KwargSpec("count_dtype", (DataType,))),
                lane_invariant={2: LaneCategory.SCRATCH}, output_memory=VEC_RESULT, input_memory=vec_operands(0, 2),
                doc="Per row, the column indices (+ offset) of the valid elements that compare true against kvalue "
                    "(cmp_mode 0..5 = eq ne lt le gt ge), packed left into [rows, out_cols] INT32; and [1, rows] "
                    "counts."))
family.op(OpDef("tile.gather_mask", deduce_tile_gather_mask, args=(ArgSpec("src"),),
                kwargs=(_MASK_PATTERN, KwargSpec("output_dtype", (DataType,))),
                output_memory=VEC_RESULT, input_memory=vec_operands(0),
                doc="Keep the columns a MaskPattern selects (P0101 even, P1010 odd, P0001..P1000 column k of 4, "
                    "P1111 all), packed left; output_dtype reinterprets the bits."))
family.op(OpDef("tensor.gather", deduce_tensor_gather, args=(ArgSpec("input"), ArgSpec("index")),
                kwargs=(KwargSpec("dim", (int,)),),
                doc="torch.gather: out[..i..] = input[..index[..i..] on axis dim..]."))
family.op(OpDef("tensor.gather_compare", deduce_tensor_gather_compare, args=(ArgSpec("input"), ArgSpec("kvalue")),
                kwargs=(KwargSpec("cmp_mode", (int,)), KwargSpec("offset", (int,), 0), KwargSpec("out_cols", (int,)),
                        KwargSpec("count_dtype", (DataType,))),
                doc="Per row, the column indices (+ offset) of the elements that compare true against kvalue, packed "
                    "left into [rows, out_cols] INT32, and their [1, rows] counts."))
family.op(OpDef("tensor.gather_mask", deduce_tensor_gather_mask, args=(ArgSpec("input"),),
                kwargs=(KwargSpec("mask_pattern", (int,)), KwargSpec("output_dtype", (DataType,))),
                doc="The columns a MaskPattern selects, packed left (see tile.gather_mask)."))


# -- tile forms ---------------------------------------------------------------------------------------------
def lower_tensor_gather(ctx: TileLowering, call: Call) -> Expr:
    """tile.gather (flat-index) of flat row-major indices built from the index tile (cast to INT32)."""
    src = ctx.tile(call.args[0])
    index = ctx.tile(call.args[1])
    if len(tile_type(src).shape) == 3:
        return lower_rank3_gather(ctx, call, src, index, int(call.kwargs["dim"]) % 3)
    rows, cols = static_2d("tensor.gather", tile_type(src))
    if tile_type(index).dtype is not D.INT32:
        index = bound(ctx, "tile.cast", [index], {"target_type": D.INT32}, "index32")
    axis = int(call.kwargs["dim"]) % 2
    flat = flat_index(ctx, "tensor.gather", index, axis, cols)
    it = tile_type(index)
    tmp = bound(ctx, "tile.create", [MakeTuple(list(it.shape))], {"dtype": tile_type(src).dtype}, "gather_tmp")
    return ctx.call("tile.gather", [src, flat, tmp])


family.implement("tile_form", "tensor.gather", TileForm(lower=lower_tensor_gather))


def lower_tensor_gather_compare(ctx: TileLowering, call: Call) -> Expr:
    src = ctx.tile(call.args[0])
    tmp = bound(ctx, "tile.create", [MakeTuple(list(tile_type(src).shape))], {"dtype": D.UINT8}, "compare_tmp")
    return ctx.call("tile.gather_compare", [src, call.args[1], tmp], dict(call.kwargs))


# The input is a declared Vec operand: a GM one is bridged (`<name>_vec`), PyPTO's rule 5.
family.implement("tile_form", "tensor.gather_compare", TileForm(lower=lower_tensor_gather_compare,
                                                            operand_spaces=((0, MemorySpace.Vec, None),)))


family.implement("tile_form", "tensor.gather_mask", TileForm(op="tile.gather_mask"))


# -- DSL ----------------------------------------------------------------------------------------------------
def _compare_kwargs(cmp_mode: Any, offset: Any, out_cols: Any, count_dtype: Any) -> dict[str, Any]:
    kwargs: dict[str, Any] = {}
    if cmp_mode is not None:
        kwargs["cmp_mode"] = to_cmp_mode(cmp_mode)
    set_if(kwargs, "offset", to_int(offset, "offset"), 0)
    if out_cols is not None:
        kwargs["out_cols"] = to_int(out_cols, "out_cols")
    if count_dtype is not None:
        kwargs["count_dtype"] = to_dtype(count_dtype, "count_dtype")
    return kwargs


@family.dsl("tile.gather_compare")
@dsl_entry
def tile_gather_compare(src: Expr, kvalue: Any, tmp: Expr, span: Span | None = None, *,
                                cmp_mode: Any = "eq", offset: Any = 0, out_cols: Any, count_dtype: Any = None) -> Call:
    """kvalue retyped to src's dtype; cmp_mode an int or a name."""
    return create_op_call("tile.gather_compare", [src, scalar_for(kvalue, src, span), tmp],
                          _compare_kwargs(cmp_mode, offset, out_cols, count_dtype), span=span)


@family.dsl("tensor.gather_compare")
@dsl_entry
def tensor_gather_compare(input: Expr, kvalue: Any, span: Span | None = None, *, cmp_mode: Any = None,
                                  offset: Any = 0, out_cols: Any = None, count_dtype: Any = None) -> Call:
    return create_op_call("tensor.gather_compare", [input, scalar_for(kvalue, input, span)],
                          _compare_kwargs(cmp_mode, offset, out_cols, count_dtype), span=span)


@family.dsl("tile.gather_mask")
@dsl_entry
def gather_mask(src: Expr, mask_pattern: Any, span: Span | None = None, *, output_dtype: Any = None) -> Call:
    kwargs: dict[str, Any] = {"mask_pattern": R.mask_int(mask_pattern)}
    if output_dtype is not None:
        kwargs["output_dtype"] = to_dtype(output_dtype, "output_dtype")
    return create_op_call("tile.gather_mask", [src], kwargs, span=span)


@family.dsl("tensor.gather_mask")
@dsl_entry
def tensor_gather_mask(input: Expr, mask_pattern: Any = None, span: Span | None = None, *,
                       output_dtype: Any = None) -> Call:
    kwargs: dict[str, Any] = {} if mask_pattern is None else {"mask_pattern": R.mask_int(mask_pattern)}
    if output_dtype is not None:
        kwargs["output_dtype"] = to_dtype(output_dtype, "output_dtype")
    return create_op_call("tensor.gather_mask", [input], kwargs, span=span)


@family.dsl("tensor.gather")
@dsl_entry
def tensor_gather(input: Expr, *args: Any, span: Span | None = None, dim: Any = None, index: Any = None,
                          mask_pattern: Any = None, output_dtype: Any = None, kvalue: Any = None, cmp_mode: Any = None,
                          out_cols: Any = None, offset: Any = 0, count_dtype: Any = None) -> Call:
    """PyPTO's (input, dim=None, index=None, *, mask_pattern, output_dtype, kvalue, cmp_mode, out_cols, offset,
    count_dtype): mask_pattern -> tensor.gather_mask, kvalue -> tensor.gather_compare, else tensor.gather."""
    if mask_pattern is not None:
        return tensor_gather_mask(input, mask_pattern, span=span, output_dtype=output_dtype)
    if kvalue is not None:
        return tensor_gather_compare(input, kvalue, span=span, cmp_mode=cmp_mode, offset=offset,
                                             out_cols=out_cols, count_dtype=count_dtype)
    dim, operands = dim_first(args, dim, ("index",))
    if index is not None:
        operands.append(index)
    if len(operands) != 1:
        raise TypeError("tensor.gather takes the input, dim and an index tensor")
    return create_op_call("tensor.gather", [input, operands[0]],
                          {} if dim is None else {"dim": to_int(dim, "dim")}, span=span)


_TILE_GATHER = registered("tile.gather")


def _gather_tile(src: Any, *args: Any, span: Span | None = None, mask_pattern: Any = None, output_dtype: Any = None,
                 kvalue: Any = None, cmp_mode: Any = "eq", out_cols: Any = None, offset: Any = 0,
                 count_dtype: Any = None, **rest: Any) -> Any:
    if mask_pattern is not None:
        return gather_mask(src, mask_pattern, span=span, output_dtype=output_dtype)
    if kvalue is not None:
        return tile_gather_compare(src, kvalue, *args, span=span, cmp_mode=cmp_mode, offset=offset,
                                           out_cols=out_cols, count_dtype=count_dtype)
    return _TILE_GATHER(src, *args, span=span, **rest)


def _gather_tensor(x: Any, *args: Any, span: Span | None = None, **kwargs: Any) -> Any:
    if len(args) == 2 and all(operand_kind(a) == "Tensor" for a in args):  # the tile form (src, indices, tmp)
        raise TypeError("pl.gather(src, indices, tmp) works on tiles; load the tensor into a tile first (pl.load), "
                        "or use pl.gather(input, dim, index) on tensors")
    return tensor_gather(x, *args, span=span, **kwargs)


family.dsl_function("tile.MaskPattern", R.MaskPattern)  # pl.tile.MaskPattern.P0101, a value
family.dsl_function("gather", dsl_entry(dispatch_between("gather", _gather_tile, _gather_tensor)))
family.dsl_function("gatherb", tile_only("gatherb", registered("tile.gatherb")))
family.dsl_function("gather_compare", tile_only("gather_compare", tile_gather_compare))  # kvalue / offset


# The row-major tiles the backend's instruction needs (ResolveBackendOpLayouts, docs/plugins.md, op interfaces).
for _row_major_op in ("gatherb",):
    family.implement("row_major_layout", f"tile.{_row_major_op}", row_major())


# Memory planning facts (docs/memory_planning.md): where a result's buffer lives, which operands it must not share.
family.set_traits("tile.gather", "tile.gather_compare", "tile.gather_mask", "tile.gatherb",
                  output_must_not_alias="all")

"""Scatters: tile.scatter / scatter_update / scatter_mask / mscatter and tensor.scatter / scatter_update /
scatter_mask, and the top-level `pl.scatter`, `pl.scatter_update`, `pl.mscatter`.

IR layouts (docs/reference/ops.md):
* `tile.scatter(dst, src, indexes)`: dst with dst.flat[indexes[i, j]] = src[i, j] (2-D operands; src and
  indexes of one static shape; the index width 2 bytes for 1-byte data, else the data's: INT16 / INT32);
  `tensor.scatter(input, index, src)` kwarg `dim`: torch.scatter along the last axis.
* `tile.scatter_update(input, index, src)` / `tensor.scatter_update(...)` kwarg `dim` (-2, recorded; dim=0 of a
  2-D input is the same axis): input (2-D, or 4-D viewed [rows, d]) with row index.flat[r] replaced by src row
  r; index [b, s], src [b * s, d] or [b, s, 1, d] of input's width and dtype. The DSL also takes PyPTO's
  (input, dim, index, src).
* `tile.scatter_mask(dst, src)` kwarg `mask_pattern`: dst with the columns the MaskPattern selects replaced by
  src's (the inverse of gather_mask; dst `stride` times as wide); `tensor.scatter_mask(input, dst)` names the
  narrow source first.
* `tile.mscatter(src, idx, output_tensor)`: a tile scattered into a GM tensor, output_tensor.flat[idx[i, j]] =
  src[i, j] (INT32 idx of src's static shape); returns the tensor (arg 2 Write).

Lanes: the destination of scatter / scatter_update is an AbsoluteIndexedDestination
(docs/passes/lower_auto_vector_split.md; kept even where the deducer reads it: it is not a shape relation);
scatter_update checks the relations the tensor path asserts (src rows == b * s, equal widths) instead of
declaring index / src; the destinations are ReadWrite. Memory: tile operands are read from Vec (mscatter's
destination is a GM tensor). Only elements valid in both src and the indices are written (an empty lane
writes nothing); an index outside the destination is a MachineError; two elements addressing one place:
the later in row-major order wins.

Tile forms: tensor.scatter is tile.scatter on flat row-major indices (an INT16 flat index must fit);
tensor.scatter_mask(input, dst) is tile.scatter_mask(dst, input); tensor.scatter_update is the tile op.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import MemorySpace
from pypto_core.ir.expr import Call, Expr
from pypto_core.ir.span import Span
from pypto_core.ir.types import TensorType, TileType, Type
from pypto_core.ops.build import (
    dsl_entry,
    require_dtype_in,
    require_rank,
    require_tensor,
    require_tile,
    same_dim,
    shape_text,
    static_int,
    to_int,
)
from pypto_core.ops.family import OpFamily
from pypto_core.ops.opdef import ArgSpec, Effect, KwargSpec, LaneCategory, OpDef
from pypto_core.ops.registry import create_op_call
from pypto_core.ops.tile_form import TileForm, TileLowering
from pypto_plugins.ops_tile.common import indexing as R
from pypto_plugins.ops_tile.common.dsl import Builder, dim_first, dispatch_between, registered, tile_only
from pypto_plugins.ops_tile.common.tile_forms import flat_index, static_2d, tile_type
from pypto_plugins.ops_tile.common.views import VEC_RESULT, row_major, same_view, vec_operands

family = OpFamily("scatter", semantics="pypto_plugins.ops_tile.semantics.scatter")

D = DataType


# -- type rules ---------------------------------------------------------------------------------------------
def deduce_tile_scatter(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tile.scatter"
    dst, src = require_tile(op, args[0], "dst"), require_tile(op, args[1], "src")
    idx = require_tile(op, args[2], "indexes")
    if not idx.dtype.is_int():
        raise TypeError(f"{op}: indexes must hold integers, got {idx.dtype.name}")
    for t, what in ((dst, "dst"), (src, "src"), (idx, "indexes")):
        require_rank(op, t.shape, 2, what)
    require_dtype_in(op, dst.dtype, R.SCATTER_DTYPES, "dst")
    if src.dtype is not dst.dtype:
        raise TypeError(f"{op}: src is {src.dtype.name} but dst is {dst.dtype.name}")
    R.index_dtype_for(op, dst.dtype, idx.dtype, "indexes")
    if not all(static_int(a) is not None and static_int(a) == static_int(b) for a, b in zip(src.shape, idx.shape)):
        raise TypeError(f"{op}: src {shape_text(src.shape)} and indexes {shape_text(idx.shape)} must have one "
                        f"static shape (one index per source element)")
    return TileType(dst.shape, dst.dtype, None, same_view(dst, dst.shape), dst.memory_space)


def deduce_tensor_scatter(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tensor.scatter"
    dst, index, src = (require_tensor(op, a, w) for a, w in zip(args, ("input", "index", "src")))
    for t, what in ((dst, "input"), (index, "index"), (src, "src")):
        require_rank(op, t.shape, 2, what)
    require_dtype_in(op, dst.dtype, R.SCATTER_DTYPES, "input")
    if src.dtype is not dst.dtype:
        raise TypeError(f"{op}: src is {src.dtype.name} but input is {dst.dtype.name}")
    R.index_dtype_for(op, dst.dtype, index.dtype, "index")
    if R.dim_axis(op, kwargs.get("dim"), 2) != 1:
        raise ValueError(f"{op}: dim must be the last axis (1 or -1), got {kwargs.get('dim')}")
    for i, s, d in zip(index.shape, src.shape, dst.shape):
        ni, ns, nd = static_int(i), static_int(s), static_int(d)
        if ni is None or ns is None or ni != ns:
            raise TypeError(f"{op}: index {shape_text(index.shape)} and src {shape_text(src.shape)} must have one "
                            f"static shape")
        if nd is not None and ns > nd:
            raise TypeError(f"{op}: src {shape_text(src.shape)} exceeds input {shape_text(dst.shape)}")
    return TensorType(dst.shape, dst.dtype)


def check_scatter_update(op: str, table: Any, index: Any, src: Any, kwargs: Mapping[str, Any]) -> None:
    """input [rows, d] (or 4-D, rows = the leading dims), index [b, s] ints, src [b * s, d] or [b, s, 1, d]."""
    if len(table.shape) not in (2, 4):
        raise TypeError(f"{op}: input must be 2-D or 4-D, got {shape_text(table.shape)}")
    if len(src.shape) != len(table.shape):
        raise TypeError(f"{op}: src {shape_text(src.shape)} must have input's rank ({len(table.shape)})")
    if not index.dtype.is_int():
        raise TypeError(f"{op}: index must hold integers, got {index.dtype.name}")
    if len(index.shape) != 2:
        raise TypeError(f"{op}: index must be [b, s], got {shape_text(index.shape)}")
    dim = kwargs.get("dim")
    if dim is not None and dim != -2 and not (len(table.shape) == 2 and dim == 0):
        raise ValueError(f"{op}: only dim=-2 (rows) is supported, got dim={dim}")
    counts = [static_int(d) for d in index.shape]
    if len(src.shape) == 2:
        rows = static_int(src.shape[0])
        if all(c is not None for c in counts) and rows is not None and rows != counts[0] * counts[1]:  # type: ignore[operator]
            raise TypeError(f"{op}: src has {rows} rows but index {shape_text(index.shape)} addresses "
                            f"{counts[0] * counts[1]}; src must be [b * s, d]")  # type: ignore[operator]
    elif not (same_dim(src.shape[0], index.shape[0]) and same_dim(src.shape[1], index.shape[1])
              and static_int(src.shape[2]) == 1):
        raise TypeError(f"{op}: a 4-D src must be [b, s, 1, d] for index {shape_text(index.shape)}, got "
                        f"{shape_text(src.shape)}")
    if not same_dim(src.shape[-1], table.shape[-1]):
        raise TypeError(f"{op}: src width {shape_text(src.shape)} differs from input width "
                        f"{shape_text(table.shape)}")
    if src.dtype is not table.dtype:
        raise TypeError(f"{op}: src is {src.dtype.name} but input is {table.dtype.name}")


def deduce_tile_scatter_update(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tile.scatter_update"
    table, src = require_tile(op, args[0], "input"), require_tile(op, args[2], "src")
    index = require_tile(op, args[1], "index")
    if not index.dtype.is_int():
        raise TypeError(f"{op}: index must hold integers, got {index.dtype.name}")
    check_scatter_update(op, table, index, src, kwargs)
    return TileType(table.shape, table.dtype, None, same_view(table, table.shape), table.memory_space)


def deduce_tensor_scatter_update(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tensor.scatter_update"
    table, index, src = (require_tensor(op, a, w) for a, w in zip(args, ("input", "index", "src")))
    check_scatter_update(op, table, index, src, kwargs)
    return TensorType(table.shape, table.dtype)


def deduce_tile_scatter_mask(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tile.scatter_mask"
    dst, src = require_tile(op, args[0], "dst"), require_tile(op, args[1], "src")
    for t, what in ((dst, "dst"), (src, "src")):
        require_rank(op, t.shape, 2, what)
        require_dtype_in(op, t.dtype, R.SCATTER_DTYPES, what)
    if src.dtype is not dst.dtype:
        raise TypeError(f"{op}: src is {src.dtype.name} but dst is {dst.dtype.name}")
    if not same_dim(src.shape[0], dst.shape[0]):
        raise TypeError(f"{op}: src rows {shape_text(src.shape)} differ from dst rows {shape_text(dst.shape)}")
    R.check_scattered_cols(op, src.shape[1], dst.shape[1], int(kwargs["mask_pattern"]), "src", "dst")
    return TileType(dst.shape, dst.dtype, None, same_view(dst, dst.shape), None)


def deduce_tensor_scatter_mask(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tensor.scatter_mask"
    src, dst = require_tensor(op, args[0], "input"), require_tensor(op, args[1], "dst")
    for t, what in ((src, "input"), (dst, "dst")):
        require_rank(op, t.shape, 2, what)
        require_dtype_in(op, t.dtype, R.SCATTER_DTYPES, what)
    if src.dtype is not dst.dtype:
        raise TypeError(f"{op}: input is {src.dtype.name} but dst is {dst.dtype.name}")
    pattern = kwargs.get("mask_pattern")
    if pattern is None:
        raise ValueError(f"{op}: mask_pattern is required")
    if not same_dim(src.shape[0], dst.shape[0]):
        raise TypeError(f"{op}: input rows {shape_text(src.shape)} differ from dst rows {shape_text(dst.shape)}")
    R.check_scattered_cols(op, src.shape[1], dst.shape[1], int(pattern), "input", "dst")
    return TensorType(dst.shape, dst.dtype)


def deduce_mscatter(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tile.mscatter"
    src = require_tile(op, args[0], "src")
    idx = require_tile(op, args[1], "idx")
    out = require_tensor(op, args[2], "output_tensor")
    require_dtype_in(op, src.dtype, R.MSCATTER_DTYPES, "src")
    if idx.dtype is not D.INT32:
        raise TypeError(f"{op}: idx must be INT32, got {idx.dtype.name}")
    if len(idx.shape) != len(src.shape) or not all(
            static_int(a) is not None and static_int(a) == static_int(b) for a, b in zip(idx.shape, src.shape)):
        raise TypeError(f"{op}: idx {shape_text(idx.shape)} must have src's static shape {shape_text(src.shape)}")
    if not out.shape or any(static_int(d) == 0 for d in out.shape):
        raise TypeError(f"{op}: output_tensor must not be empty, got {shape_text(out.shape)}")
    if out.dtype is not src.dtype:
        raise TypeError(f"{op}: output_tensor is {out.dtype.name} but src is {src.dtype.name}")
    return out


# -- ops ----------------------------------------------------------------------------------------------------
_DST = {0: LaneCategory.ABSOLUTE_INDEXED_DESTINATION}
_RW_DST = {0: Effect.READ_WRITE}
_DIM = KwargSpec("dim", (int,))

family.op(OpDef("tile.scatter", deduce_tile_scatter, args=(ArgSpec("dst"), ArgSpec("src"), ArgSpec("indexes")),
                effects=_RW_DST, lane_invariant=_DST, output_memory=VEC_RESULT, input_memory=vec_operands(0, 1, 2),
                doc="TSCATTER: dst with dst.flat[indexes[i, j]] = src[i, j]."), dsl="tile.scatter")
family.op(OpDef("tile.scatter_update", deduce_tile_scatter_update,
                args=(ArgSpec("input"), ArgSpec("index"), ArgSpec("src")),
                kwargs=(KwargSpec("dim", (int,), -2, recorded=True),), effects=_RW_DST, lane_invariant=_DST,
                output_memory=VEC_RESULT, input_memory=vec_operands(0, 1, 2),
                doc="input (viewed [rows, d]) with row index.flat[r] replaced by src row r."))
family.op(OpDef("tile.scatter_mask", deduce_tile_scatter_mask, args=(ArgSpec("dst"), ArgSpec("src")),
                kwargs=(KwargSpec("mask_pattern", (int,), required=True, choices=tuple(R.MASK_SELECT)),),
                effects=_RW_DST, output_memory=VEC_RESULT, input_memory=vec_operands(0, 1),
                doc="The inverse of gather_mask: dst with the columns the MaskPattern selects replaced by src's "
                    "columns."))
family.op(OpDef("tile.mscatter", deduce_mscatter, args=(ArgSpec("src"), ArgSpec("idx"), ArgSpec("output_tensor")),
                effects={2: Effect.WRITE}, input_memory=vec_operands(0, 1),
                doc="Scatter a tile into a GM tensor: output_tensor.flat[idx[i, j]] = src[i, j]; returns the tensor."),
          dsl="tile.mscatter")
family.op(OpDef("tensor.scatter", deduce_tensor_scatter, args=(ArgSpec("input"), ArgSpec("index"), ArgSpec("src")),
                kwargs=(_DIM,),
                doc="torch.scatter along the last axis: out = input; out[i, index[i, j]] = src[i, j]."))
family.op(OpDef("tensor.scatter_mask", deduce_tensor_scatter_mask, args=(ArgSpec("input"), ArgSpec("dst")),
                kwargs=(KwargSpec("mask_pattern", (int,)),),
                doc="dst with the columns a MaskPattern selects replaced by input's columns."))
family.op(OpDef("tensor.scatter_update", deduce_tensor_scatter_update,
                args=(ArgSpec("input"), ArgSpec("index"), ArgSpec("src")), kwargs=(_DIM,),
                doc="input with row index.flat[r] (of input viewed [rows, d]) replaced by src row r."))


# -- tile forms ---------------------------------------------------------------------------------------------
def lower_tensor_scatter(ctx: TileLowering, call: Call) -> Expr:
    dst, index, src = (ctx.tile(a) for a in call.args)
    rows, cols = static_2d("tensor.scatter", tile_type(dst))
    if tile_type(index).dtype is D.INT16 and rows * cols > 2**15:
        # tile.scatter takes 16-bit indexes for 16-bit data: the flat index must fit
        raise ValueError(f"tensor.scatter: a [{rows}, {cols}] input has more elements than an INT16 flat index "
                         f"addresses; use an INT32 index with 32-bit data")
    flat = flat_index(ctx, "tensor.scatter", index, 1, cols)
    return ctx.call("tile.scatter", [dst, src, flat])


family.implement("tile_form", "tensor.scatter", TileForm(lower=lower_tensor_scatter))


def lower_tensor_scatter_mask(ctx: TileLowering, call: Call) -> Expr:
    """tensor.scatter_mask(input, dst) is tile.scatter_mask(dst, input): the tile op names the destination first."""
    src, dst = ctx.tile(call.args[0]), ctx.tile(call.args[1])
    return ctx.call("tile.scatter_mask", [dst, src], dict(call.kwargs))


family.implement("tile_form", "tensor.scatter_mask", TileForm(lower=lower_tensor_scatter_mask))


# Input, index and source are declared Vec operands: GM ones are bridged (`<name>_vec`), PyPTO's rule 5.
family.implement("tile_form", "tensor.scatter_update", TileForm(op="tile.scatter_update", operand_spaces=(
    (0, MemorySpace.Vec, None), (1, MemorySpace.Vec, None), (2, MemorySpace.Vec, None))))


# -- DSL ----------------------------------------------------------------------------------------------------
@family.dsl("tile.scatter_mask")
@dsl_entry
def scatter_mask(dst: Expr, src: Expr, mask_pattern: Any, span: Span | None = None) -> Call:
    return create_op_call("tile.scatter_mask", [dst, src], {"mask_pattern": R.mask_int(mask_pattern)}, span=span)


@family.dsl("tensor.scatter_mask")
@dsl_entry
def tensor_scatter_mask(input: Expr, dst: Expr, mask_pattern: Any = None, span: Span | None = None) -> Call:
    kwargs = {} if mask_pattern is None else {"mask_pattern": R.mask_int(mask_pattern)}
    return create_op_call("tensor.scatter_mask", [input, dst], kwargs, span=span)


def scatter_update_builder(namespace: str) -> Builder:
    def scatter_update(input: Expr, *args: Any, span: Span | None = None, dim: Any = None, index: Any = None,
                       src: Any = None) -> Call:
        """(input, index, src, dim=-2) or PyPTO's (input, dim, index, src)."""
        dim, operands = dim_first(args, dim, ("index", "src"))
        operands += [v for v in (index, src) if v is not None]
        if len(operands) != 2:
            raise TypeError("scatter_update takes the input, an index and a src")
        kwargs = {"dim": -2 if dim is None else to_int(dim, "dim")}
        return create_op_call(f"{namespace}.scatter_update", [input, *operands], kwargs, span=span)

    return dsl_entry(scatter_update)


@family.dsl("tensor.scatter")
@dsl_entry
def tensor_scatter(input: Expr, *args: Any, span: Span | None = None, dim: Any = None, index: Any = None,
                   src: Any = None, mask_pattern: Any = None, dst: Any = None) -> Call:
    """PyPTO's (input, dim=None, index=None, src=None, *, mask_pattern=None, dst=None)."""
    if mask_pattern is not None:
        if dst is None:
            raise TypeError("a mask scatter needs dst= (the tensor whose selected columns input rewrites)")
        return tensor_scatter_mask(input, dst, mask_pattern, span=span)
    dim, operands = dim_first(args, dim, ("index", "src"))
    operands += [v for v in (index, src) if v is not None]
    if len(operands) != 2:
        raise TypeError("tensor.scatter takes the input, dim, an index and a src")
    return create_op_call("tensor.scatter", [input, *operands], {} if dim is None else {"dim": to_int(dim, "dim")},
                          span=span)


_TILE_SCATTER = registered("tile.scatter")


def _scatter_tile(x: Any, *args: Any, span: Span | None = None, mask_pattern: Any = None, dst: Any = None,
                  **rest: Any) -> Any:
    if mask_pattern is not None:  # PyPTO's pl.scatter(input, mask_pattern=, dst=): input is the narrow source
        if dst is None:
            raise TypeError("a mask scatter needs dst= (the tile whose selected columns input rewrites)")
        return scatter_mask(dst, x, mask_pattern, span=span)
    return _TILE_SCATTER(x, *args, span=span, **rest)


_SCATTER_UPDATE = {ns: scatter_update_builder(ns) for ns in ("tile", "tensor")}
family.dsl_function("tile.scatter_update", _SCATTER_UPDATE["tile"])
family.dsl_function("tensor.scatter_update", _SCATTER_UPDATE["tensor"])
family.dsl_function("scatter", dsl_entry(dispatch_between("scatter", _scatter_tile, tensor_scatter)))
family.dsl_function("scatter_update", dispatch_between("scatter_update", _SCATTER_UPDATE["tile"],
                                                       _SCATTER_UPDATE["tensor"]))
family.dsl_function("mscatter", tile_only("mscatter", registered("tile.mscatter")))


# The row-major tiles the backend's instruction needs (ResolveBackendOpLayouts, docs/plugins.md, op interfaces).
family.implement("row_major_layout", "tile.mscatter", row_major((0, 1), result=False))


# Memory planning facts (docs/memory_planning.md): where a result's buffer lives, which operands it must not share.
family.set_traits("tile.scatter", "tile.scatter_mask", "tile.scatter_update", output_reuses_input=0)
family.set_traits("tile.mscatter", output_reuses_input=2)

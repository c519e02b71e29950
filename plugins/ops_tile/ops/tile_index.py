"""Index-addressed tile ops: gather, gatherb, scatter, scatter_update, gather_compare, gather_row.

IR layouts (API.md 3.3): `tile.gather(src, indices, tmp)`, `tile.gatherb(src, offsets)` (kwarg
`output_dtype`), `tile.scatter(dst, src, indices)`, `tile.scatter_update(input, index, src)` (kwarg
`dim`), `tile.gather_compare(src, k, tmp)` (kwargs `cmp_mode`, `out_cols`; a tuple result),
`tile.gather_row(dst, src, dst_offset, src_offset, shapes[, valid_shape])` (kwarg `transpose`).

Lanes (seed 003, the Scratch / IndexAddressedSource / AbsoluteIndexedDestination table): the
table of gather / gatherb is an IndexAddressedSource, the destination of scatter / scatter_update an
AbsoluteIndexedDestination (kept even where the deducer reads it: the property is not a shape
relation), tmp operands are Scratch. scatter_update checks the relations the tensor path asserts
(src rows == b * s, equal widths) instead of declaring index / src.

Memory: every tile operand of gather / gatherb / scatter / scatter_update / gather_compare is
declared Vec (OPS.md); gather_row's dst may be Mat or Vec and is undeclared, as in PyPTO. The
deducers do not check spaces (InferTileMemorySpace places the operands).

Choices where API.md is silent: indices / offsets must be integer tiles; gatherb's output_dtype
defaults to the table's dtype; scatter needs src and indices of one shape; scatter_update's index
is [b, s] (or [n]) and `dim` must address rows (-2 or 0); gather_compare's k is a scalar and it
returns (dst [rows, out_cols] of src's dtype, cdst [1, rows] INT32); gather_row's destination is
written in place (arg 0 Write) and its 6th operand is the result's valid region.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import MemorySpace
from pypto_core.ir.expr import ConstInt, Expr
from pypto_core.ir.types import TileType, TupleType, Type
from pypto_core.ops.build import (
    check_window,
    require_rank,
    require_scalar,
    require_tensor,
    require_tile,
    same_dim,
    shape_text,
    static_int,
    tuple_elements,
)
from pypto_core.ops.opdef import ArgSpec, Effect, KwargSpec, LaneCategory, OpDef, OpTraits, OutputMemory
from pypto_plugins.ops_tile.ops.tile_elementwise import vec_operands
from pypto_plugins.ops_tile.ops.views import is_partial, same_view, valid_view

_VEC = OutputMemory(fixed=MemorySpace.Vec)
_SRC = LaneCategory.INDEX_ADDRESSED_SOURCE
_DST = LaneCategory.ABSOLUTE_INDEXED_DESTINATION


def _index_tile(op: str, e: Expr, what: str) -> TileType:
    t = require_tile(op, e, what)
    if not t.dtype.is_int():
        raise TypeError(f"{op}: {what} must hold integers, got {t.dtype.name}")
    return t


def _indexed_result(idx: TileType, dtype: DataType) -> TileType:
    view = valid_view(idx.valid_shape, idx.shape, MemorySpace.Vec) if is_partial(idx) else None
    return TileType(idx.shape, dtype, None, view, None)


def deduce_gather(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    src = require_tile("tile.gather", args[0], "src")
    idx = _index_tile("tile.gather", args[1], "indices")
    require_tile("tile.gather", args[2], "tmp")
    return _indexed_result(idx, src.dtype)


def deduce_gatherb(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    src = require_tile("tile.gatherb", args[0], "src")
    off = _index_tile("tile.gatherb", args[1], "offsets")
    return _indexed_result(off, kwargs.get("output_dtype") or src.dtype)


def deduce_scatter(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tile.scatter"
    dst, src = require_tile(op, args[0], "dst"), require_tile(op, args[1], "src")
    idx = _index_tile(op, args[2], "indices")
    if len(src.shape) != len(idx.shape) or not all(map(same_dim, src.shape, idx.shape)):
        raise TypeError(f"{op}: src {shape_text(src.shape)} and indices {shape_text(idx.shape)} must have "
                        f"one shape (one index per source element)")
    if src.dtype is not dst.dtype:
        raise TypeError(f"{op}: src is {src.dtype.name} but dst is {dst.dtype.name}")
    return TileType(dst.shape, dst.dtype, None, same_view(dst, dst.shape), None)


def deduce_scatter_update(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tile.scatter_update"
    table, src = require_tile(op, args[0], "input"), require_tile(op, args[2], "src")
    index = _index_tile(op, args[1], "index")
    require_rank(op, table.shape, 2, "input")
    require_rank(op, src.shape, 2, "src")
    if kwargs.get("dim", -2) not in (-2, 0):
        raise ValueError(f"{op}: only dim=-2 (rows) is supported, got dim={kwargs['dim']}")
    if len(index.shape) not in (1, 2):
        raise TypeError(f"{op}: index must be [b, s] or [n], got {shape_text(index.shape)}")
    counts = [static_int(d) for d in index.shape]
    rows = static_int(src.shape[0])
    if all(c is not None for c in counts) and rows is not None:
        n = 1
        for c in counts:
            n *= c  # type: ignore[operator]
        if rows != n:
            raise TypeError(f"{op}: src has {rows} rows but index {shape_text(index.shape)} addresses {n}; "
                            f"src must be [b * s, d]")
    elif len(index.shape) == 1 and not same_dim(src.shape[0], index.shape[0]):
        raise TypeError(f"{op}: src rows {shape_text(src.shape)} must equal the index count")
    if not same_dim(src.shape[1], table.shape[1]):
        raise TypeError(f"{op}: src width {shape_text(src.shape)} differs from input width "
                        f"{shape_text(table.shape)}")
    if src.dtype is not table.dtype:
        raise TypeError(f"{op}: src is {src.dtype.name} but input is {table.dtype.name}")
    return TileType(table.shape, table.dtype, None, same_view(table, table.shape), None)


def deduce_gather_compare(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tile.gather_compare"
    src = require_tile(op, args[0], "src")
    require_rank(op, src.shape, 2, "src")
    require_scalar(op, args[1], "k")
    require_tile(op, args[2], "tmp")
    out_cols = kwargs["out_cols"]
    if out_cols <= 0:
        raise ValueError(f"{op}: out_cols must be positive, got {out_cols}")
    rows = src.shape[0]
    dst = TileType([rows, ConstInt(out_cols)], src.dtype, None, None, MemorySpace.Vec)
    cdst = TileType([ConstInt(1), rows], DataType.INT32, None, None, MemorySpace.Vec)
    return TupleType([dst, cdst])


def deduce_gather_row(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tile.gather_row"
    dst = require_tile(op, args[0], "dst")
    src = require_tensor(op, args[1], "src")
    dst_off, src_off, shape = (tuple_elements(a) for a in args[2:5])
    if len(dst_off) != len(dst.shape) or len(shape) != len(dst.shape):
        raise TypeError(f"{op}: dst_offset ({len(dst_off)}-D) and shapes ({len(shape)}-D) must match the "
                        f"{len(dst.shape)}-D dst")
    if len(src_off) != len(src.shape):
        raise TypeError(f"{op}: src_offset has {len(src_off)} dims for a {len(src.shape)}-D src")
    if src.dtype is not dst.dtype:
        raise TypeError(f"{op}: src is {src.dtype.name} but dst is {dst.dtype.name}")
    window = list(reversed(shape)) if kwargs.get("transpose", False) else list(shape)
    check_window(op, "writes", dst_off, window, dst.shape, "dst")
    check_window(op, "reads", src_off, shape, src.shape, "src")
    if len(args) > 5:
        valid = tuple_elements(args[5])
        if len(valid) != len(dst.shape):
            raise TypeError(f"{op}: valid_shape has {len(valid)} dims for a {len(dst.shape)}-D dst")
        view = dst.effective_view().with_fields(valid_shape=tuple(valid))
        return TileType(dst.shape, dst.dtype, None, view, dst.memory_space)  # type: ignore[arg-type]
    return TileType(dst.shape, dst.dtype, None, same_view(dst, dst.shape), dst.memory_space)


OPDEFS = [
    OpDef("tile.gather", deduce_gather, args=(ArgSpec("src"), ArgSpec("indices"), ArgSpec("tmp")),
          lane_invariant={0: _SRC, 2: LaneCategory.SCRATCH}, output_memory=_VEC, input_memory=vec_operands(0, 1, 2),
          doc="out[i] = src.flat[indices[i]]."),
    OpDef("tile.gatherb", deduce_gatherb, args=(ArgSpec("src"), ArgSpec("offsets")),
          kwargs=(KwargSpec("output_dtype", (DataType,)),), lane_invariant={0: _SRC}, output_memory=_VEC,
          input_memory=vec_operands(0, 1),
          doc="out[i] = the element at byte offset offsets[i] of src."),
    OpDef("tile.scatter", deduce_scatter, args=(ArgSpec("dst"), ArgSpec("src"), ArgSpec("indices")),
          effects={0: Effect.WRITE}, lane_invariant={0: _DST}, output_memory=_VEC, input_memory=vec_operands(0, 1, 2),
          doc="dst.flat[indices[i, j]] = src[i, j]."),
    OpDef("tile.scatter_update", deduce_scatter_update, args=(ArgSpec("input"), ArgSpec("index"), ArgSpec("src")),
          kwargs=(KwargSpec("dim", (int,), -2, recorded=True),), effects={0: Effect.WRITE}, lane_invariant={0: _DST},
          output_memory=_VEC, input_memory=vec_operands(0, 1, 2), doc="input[index.flat[r], :] = src[r, :]."),
    OpDef("tile.gather_compare", deduce_gather_compare, args=(ArgSpec("src"), ArgSpec("k"), ArgSpec("tmp")),
          kwargs=(KwargSpec("cmp_mode", (int,), required=True), KwargSpec("out_cols", (int,), required=True)),
          lane_invariant={2: LaneCategory.SCRATCH}, output_memory=_VEC, input_memory=vec_operands(0, 2),
          doc="Per row, gather the elements that compare against k; returns (dst, cdst counts)."),
    OpDef("tile.gather_row", deduce_gather_row,
          args=(ArgSpec("dst"), ArgSpec("src"), ArgSpec("dst_offset"), ArgSpec("src_offset"), ArgSpec("shapes"),
                ArgSpec("valid_shape", optional=True)),
          kwargs=(KwargSpec("transpose", (bool,), False),), effects={0: Effect.WRITE}, output_memory=_VEC,
          traits=OpTraits(read_address_args=(3,), shape_args=(2, 3, 4, 5)),
          doc="DMA rows of a tensor at a runtime offset into a window of dst."),
]

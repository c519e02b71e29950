"""Index-addressed tile ops: gather, gatherb, scatter, scatter_update, gather_compare, gather_row.

IR layouts (docs/reference/ops.md): `tile.gather(src, indices, tmp)`, `tile.gatherb(src, offset)` (kwarg
`output_dtype`), `tile.scatter(dst, src, indexes)`, `tile.scatter_update(input, index, src)` (kwarg
`dim`), `tile.gather_compare(src, kvalue, tmp)` (kwargs `cmp_mode`, `offset`,
`out_cols`, `count_dtype`; a tuple result),
`tile.gather_row(dst, src, dst_offset, src_offset, shapes[, valid_shape])` (kwarg `transpose`).

Lanes (docs/passes/lower_auto_vector_split.md, the Scratch / IndexAddressedSource / AbsoluteIndexedDestination table): the
table of gather / gatherb is an IndexAddressedSource, the destination of scatter / scatter_update an
AbsoluteIndexedDestination (kept even where the deducer reads it: the property is not a shape
relation), tmp operands are Scratch. scatter_update checks the relations the tensor path asserts
(src rows == b * s, equal widths) instead of declaring index / src.

Memory: every tile operand of gather / gatherb / scatter / scatter_update / gather_compare is
declared Vec (OPS.md); gather_row's dst may be Mat or Vec and is undeclared, as in PyPTO (its result
keeps dst's space). The deducers do not check spaces (InferTileMemorySpace places the operands).

Rules follow OPS.md (issue 14 audit): dtype sets, gatherb's [rows, cols * 32 / bytes] block result,
scatter's index width, scatter_update on 2-D or 4-D inputs, gather_compare's INT32 index result with
`offset` / `count_dtype`, ReadWrite destinations. Choices where OPS.md is silent: gather_row's 6th
operand narrows the result's valid region (issue 8); scatter_update accepts dim=0 on a 2-D input (the
same axis as -2).
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
    require_dtype_in,
    require_rank,
    require_tensor,
    require_tile,
    same_dim,
    shape_text,
    static_int,
    tuple_elements,
)
from pypto_core.ops.opdef import ArgSpec, Effect, KwargSpec, LaneCategory, OpDef, OpTraits, OutputMemory
from pypto_plugins.ops_tile.ops import gather_sort_rules as R
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


def deduce_gather(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tile.gather"
    src = require_tile(op, args[0], "src")
    require_dtype_in(op, src.dtype, R.GATHER_DTYPES, "src")
    idx = _index_tile(op, args[1], "indices")
    R.gather_index_dtype(op, src.dtype, idx.dtype, "indices")
    require_tile(op, args[2], "tmp")
    return TileType(idx.shape, src.dtype, None, None, None)  # valid = indices.shape (OPS.md)


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


def deduce_scatter(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tile.scatter"
    dst, src = require_tile(op, args[0], "dst"), require_tile(op, args[1], "src")
    idx = _index_tile(op, args[2], "indexes")
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


def deduce_scatter_update(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tile.scatter_update"
    table, src = require_tile(op, args[0], "input"), require_tile(op, args[2], "src")
    index = _index_tile(op, args[1], "index")
    check_scatter_update(op, table, index, src, kwargs)
    return TileType(table.shape, table.dtype, None, same_view(table, table.shape), table.memory_space)


def deduce_gather_compare(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    from pypto_plugins.ops_tile.ops.gather_sort_tensor import gather_compare_rows

    op = "tile.gather_compare"
    src = require_tile(op, args[0], "src")
    rows = gather_compare_rows(op, src, args[1], kwargs)
    require_tile(op, args[2], "tmp")
    count = kwargs.get("count_dtype") or DataType.INT32
    dst = TileType([rows, ConstInt(int(kwargs["out_cols"]))], DataType.INT32, None, None, MemorySpace.Vec)
    cdst = TileType([ConstInt(1), rows], count, None, None, MemorySpace.Vec)
    return TupleType([dst, cdst])


def check_gather_row(op: str, dst: Any, args: Sequence[Expr], kwargs: Mapping[str, Any], what: str = "dst") -> None:
    src = require_tensor(op, args[1], "src")
    dst_off, src_off, shape = (tuple_elements(a) for a in args[2:5])
    if len(dst_off) != len(dst.shape) or len(shape) != len(dst.shape):
        raise TypeError(f"{op}: dst_offset ({len(dst_off)}-D) and shapes ({len(shape)}-D) must match the "
                        f"{len(dst.shape)}-D {what}")
    if any(static_int(d) is None for d in shape):
        raise TypeError(f"{op}: shapes must be constants, got {shape_text(shape)}")
    if len(src_off) != len(src.shape):
        raise TypeError(f"{op}: src_offset has {len(src_off)} dims for a {len(src.shape)}-D src")
    if src.dtype is not dst.dtype:
        raise TypeError(f"{op}: src is {src.dtype.name} but {what} is {dst.dtype.name}")
    transpose = kwargs.get("transpose", False)
    window = list(reversed(shape)) if transpose else list(shape)
    check_window(op, "writes", dst_off, window, dst.shape, what)
    check_window(op, "reads", src_off, shape, src.shape, "src")
    if len(args) > 5:
        valid = tuple_elements(args[5])
        if len(valid) != len(dst.shape):
            raise TypeError(f"{op}: valid_shape has {len(valid)} dims for a {len(dst.shape)}-D {what}")
        for v, s in zip(valid, shape):
            nv = static_int(v)
            if transpose and nv is None:
                raise TypeError(f"{op}: valid_shape must be static with transpose=True")
            if nv is not None and not 0 <= nv <= static_int(s):  # type: ignore[operator]
                raise ValueError(f"{op}: valid_shape {shape_text(valid)} must lie within shapes {shape_text(shape)}")


def deduce_gather_row(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tile.gather_row"
    dst = require_tile(op, args[0], "dst")
    check_gather_row(op, dst, args, kwargs)
    if len(args) > 5:
        # Kept from issue 8 (docs/dsl.md, the printed form): the 6th operand narrows the result's valid region; the machine's
        # gather_row (semantics/memory.py) bounds the transfer through it. OPS.md: "result = dst's type".
        view = dst.effective_view().with_fields(valid_shape=tuple(tuple_elements(args[5])))
        return TileType(dst.shape, dst.dtype, None, view, dst.memory_space)  # type: ignore[arg-type]
    return dst


OPDEFS = [
    OpDef("tile.gather", deduce_gather, args=(ArgSpec("src"), ArgSpec("indices"), ArgSpec("tmp")),
          lane_invariant={0: _SRC, 2: LaneCategory.SCRATCH}, output_memory=_VEC, input_memory=vec_operands(0, 1, 2),
          doc="TGATHER: out[i, j] = src.flat[indices[i, j]] (row-major flat index into src)."),
    OpDef("tile.gatherb", deduce_gatherb, args=(ArgSpec("src"), ArgSpec("offset")),
          kwargs=(KwargSpec("output_dtype", (DataType,)),), lane_invariant={0: _SRC}, output_memory=_VEC,
          input_memory=vec_operands(0, 1),
          doc="TGATHERB: 32-byte block k of each row is the 32 bytes of src at byte offset offset[i, k] "
              "(bytes reinterpreted as output_dtype)."),
    OpDef("tile.scatter", deduce_scatter, args=(ArgSpec("dst"), ArgSpec("src"), ArgSpec("indexes")),
          effects={0: Effect.READ_WRITE}, lane_invariant={0: _DST}, output_memory=_VEC,
          input_memory=vec_operands(0, 1, 2), doc="TSCATTER: dst with dst.flat[indexes[i, j]] = src[i, j]."),
    OpDef("tile.scatter_update", deduce_scatter_update, args=(ArgSpec("input"), ArgSpec("index"), ArgSpec("src")),
          kwargs=(KwargSpec("dim", (int,), -2, recorded=True),), effects={0: Effect.READ_WRITE},
          lane_invariant={0: _DST}, output_memory=_VEC, input_memory=vec_operands(0, 1, 2),
          doc="input (viewed [rows, d]) with row index.flat[r] replaced by src row r."),
    OpDef("tile.gather_compare", deduce_gather_compare, args=(ArgSpec("src"), ArgSpec("kvalue"), ArgSpec("tmp")),
          kwargs=(KwargSpec("cmp_mode", (int,), required=True), KwargSpec("offset", (int,), 0),
                  KwargSpec("out_cols", (int,), required=True), KwargSpec("count_dtype", (DataType,))),
          lane_invariant={2: LaneCategory.SCRATCH}, output_memory=_VEC, input_memory=vec_operands(0, 2),
          doc="Per row, the column indices (+ offset) of the valid elements that compare true against kvalue "
              "(cmp_mode 0..5 = eq ne lt gt ge le), packed left into [rows, out_cols] INT32; and [1, rows] counts."),
    OpDef("tile.gather_row", deduce_gather_row,
          args=(ArgSpec("dst"), ArgSpec("src"), ArgSpec("dst_offset"), ArgSpec("src_offset"), ArgSpec("shapes"),
                ArgSpec("valid_shape", optional=True)),
          kwargs=(KwargSpec("transpose", (bool,), False),), effects={0: Effect.READ_WRITE},
          traits=OpTraits(read_address_args=(3,), shape_args=(2, 3, 4, 5)),
          doc="DMA the [r, c] window of a tensor at src_offset (a runtime offset) into dst at dst_offset."),
]

"""Tensor (GM-level) ops of the gather_sort family (OPS.md "tensor: Gather / scatter", "tensor: Sort").

IR layouts: `tensor.gather(input, index)` kwarg dim (torch.gather along `dim`), `tensor.gather_compare(input,
kvalue)`, `tensor.gather_mask(input)`, `tensor.gather_row(acc, src, dst_offset, src_offset, shapes[,
valid_shape])`, `tensor.paged_gather(src, indices, block_table)`, `tensor.scatter(input, index, src)` kwarg dim,
`tensor.scatter_mask(input, dst)`, `tensor.scatter_update(input, index, src)`, `tensor.sort32(src, idx)`,
`tensor.mrgsort_format1(src, block_len)`, `tensor.mrgsort_format2(src0, src1[, src2[, src3]])`.
None declares effects or memory (OPS.md): each returns a new tensor value.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import MemorySpace
from pypto_core.ir.expr import ConstInt, Expr
from pypto_core.ir.types import TensorType, TileType, TupleType, Type
from pypto_core.ops.build import (
    dims_sum,
    doubled,
    require_dtype_in,
    require_rank,
    require_scalar,
    require_tensor,
    same_dim,
    shape_text,
    static_int,
)
from pypto_core.ops.opdef import ArgSpec, KwargSpec, OpDef
from pypto_plugins.ops_tile.ops import gather_sort_rules as R
from pypto_plugins.ops_tile.ops.gather_sort import check_merge_sources

D = DataType


def _axis(op: str, dim: Any, rank: int) -> int:
    if dim is None:
        raise ValueError(f"{op}: dim is required")
    if not -rank <= int(dim) < rank:
        raise ValueError(f"{op}: dim {dim} is out of range for a {rank}-D input")
    return int(dim) % rank


def deduce_gather(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tensor.gather"
    src, index = require_tensor(op, args[0], "input"), require_tensor(op, args[1], "index")
    require_dtype_in(op, src.dtype, R.GATHER_DTYPES, "input")
    if len(src.shape) < 2:
        raise TypeError(f"{op}: input must have rank >= 2, got {shape_text(src.shape)}")
    R.gather_index_dtype(op, src.dtype, index.dtype, "index")
    if len(index.shape) != len(src.shape):
        raise TypeError(f"{op}: index {shape_text(index.shape)} must have input's rank ({len(src.shape)})")
    axis = _axis(op, kwargs.get("dim"), len(src.shape))
    for a, (i, s) in enumerate(zip(index.shape, src.shape)):
        ni, ns = static_int(i), static_int(s)
        if a != axis and ni is not None and ns is not None and ni > ns:
            raise TypeError(f"{op}: index extent {ni} on dim {a} exceeds input's {ns}")
    return TensorType(index.shape, src.dtype)


def deduce_gather_compare(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tensor.gather_compare"
    src = require_tensor(op, args[0], "input")
    rows = gather_compare_rows(op, src, args[1], kwargs)
    count = kwargs.get("count_dtype") or D.INT32
    return TupleType([TensorType([rows, ConstInt(int(kwargs["out_cols"]))], D.INT32),
                      TensorType([ConstInt(1), rows], count)])


def gather_compare_rows(op: str, src: Any, kvalue: Expr, kwargs: Mapping[str, Any]) -> Expr:
    """The checks tile.gather_compare and tensor.gather_compare share; returns the row count."""
    require_rank(op, src.shape, 2, "input" if op.startswith("tensor") else "src")
    require_dtype_in(op, src.dtype, R.GATHER_DTYPES, "input" if op.startswith("tensor") else "src")
    k = require_scalar(op, kvalue, "kvalue")
    if k.dtype is not src.dtype:
        raise TypeError(f"{op}: kvalue is {k.dtype.name} but must be the source dtype {src.dtype.name}")
    mode, out_cols = kwargs.get("cmp_mode"), kwargs.get("out_cols")
    if mode is None or not 0 <= int(mode) <= 5:
        raise ValueError(f"{op}: cmp_mode 0..5 (eq, ne, lt, gt, ge, le) is required, got {mode}")
    if out_cols is None or int(out_cols) <= 0:
        raise ValueError(f"{op}: out_cols > 0 is required, got {out_cols}")
    count = kwargs.get("count_dtype")
    if count is not None:
        require_dtype_in(op, count, R.COUNT_DTYPES, "count_dtype")
    return src.shape[0]


def deduce_gather_mask(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tensor.gather_mask"
    src = require_tensor(op, args[0], "input")
    require_rank(op, src.shape, 2, "input")
    require_dtype_in(op, src.dtype, R.GATHER_DTYPES, "input")
    pattern = kwargs.get("mask_pattern")
    if pattern is None:
        raise ValueError(f"{op}: mask_pattern is required")
    cols = R.gathered_cols(op, src.shape[1], int(pattern))
    return TensorType([src.shape[0], cols], R.same_bits_dtype(op, src.dtype, kwargs.get("output_dtype")))


def deduce_gather_row(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    from pypto_plugins.ops_tile.ops.tile_index import check_gather_row

    op = "tensor.gather_row"
    acc = args[0].type
    if not isinstance(acc, (TensorType, TileType)):
        raise TypeError(f"{op}: acc must be an on-chip buffer (pl.tensor.create_l1), got {type(acc).__name__}")
    check_gather_row(op, acc, args, kwargs, "acc")
    return acc


def deduce_paged_gather(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tensor.paged_gather"
    src = require_tensor(op, args[0], "src")
    require_rank(op, src.shape, 2, "src")
    require_dtype_in(op, src.dtype, R.PAGED_DTYPES, "src")
    for i, what in ((1, "indices"), (2, "block_table")):
        t = require_tensor(op, args[i], what)
        if t.dtype is not D.INT32 or not (len(t.shape) == 1 or (len(t.shape) == 2 and static_int(t.shape[0]) == 1)):
            raise TypeError(f"{op}: {what} must be INT32 1-D or [1, n], got {t.dtype.name} {shape_text(t.shape)}")
    for key in ("block_size", "size", "max_indices"):
        if key not in kwargs or int(kwargs[key]) <= 0:
            raise ValueError(f"{op}: {key} > 0 is required, got {kwargs.get(key)}")
    size, col_off = int(kwargs["size"]), int(kwargs.get("col_off", 0))
    cols = static_int(src.shape[1])
    if col_off < 0 or (cols is not None and col_off + size > cols):
        raise ValueError(f"{op}: col_off {col_off} + size {size} must lie within src's {cols} columns")
    if kwargs.get("is_trans") and kwargs.get("space", MemorySpace.Mat) is not MemorySpace.Mat:
        raise ValueError(f"{op}: is_trans needs space=Mat")
    rows = int(kwargs["max_indices"])
    return TensorType([size, rows] if kwargs.get("is_trans") else [rows, size], src.dtype)


def deduce_scatter(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tensor.scatter"
    dst, index, src = (require_tensor(op, a, w) for a, w in zip(args, ("input", "index", "src")))
    for t, what in ((dst, "input"), (index, "index"), (src, "src")):
        require_rank(op, t.shape, 2, what)
    require_dtype_in(op, dst.dtype, R.SCATTER_DTYPES, "input")
    if src.dtype is not dst.dtype:
        raise TypeError(f"{op}: src is {src.dtype.name} but input is {dst.dtype.name}")
    R.index_dtype_for(op, dst.dtype, index.dtype, "index")
    if _axis(op, kwargs.get("dim"), 2) != 1:
        raise ValueError(f"{op}: dim must be the last axis (1 or -1), got {kwargs.get('dim')}")
    for i, s, d in zip(index.shape, src.shape, dst.shape):
        ni, ns, nd = static_int(i), static_int(s), static_int(d)
        if ni is None or ns is None or ni != ns:
            raise TypeError(f"{op}: index {shape_text(index.shape)} and src {shape_text(src.shape)} must have one "
                            f"static shape")
        if nd is not None and ns > nd:
            raise TypeError(f"{op}: src {shape_text(src.shape)} exceeds input {shape_text(dst.shape)}")
    return TensorType(dst.shape, dst.dtype)


def deduce_scatter_mask(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
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


def deduce_scatter_update(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    from pypto_plugins.ops_tile.ops.tile_index import check_scatter_update

    op = "tensor.scatter_update"
    table, index, src = (require_tensor(op, a, w) for a, w in zip(args, ("input", "index", "src")))
    check_scatter_update(op, table, index, src, kwargs)
    return TensorType(table.shape, table.dtype)


def deduce_sort32(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tensor.sort32"
    src, idx = require_tensor(op, args[0], "src"), require_tensor(op, args[1], "idx")
    require_dtype_in(op, src.dtype, R.SORT_DTYPES, "src")
    last = static_int(src.shape[-1])
    if last is None or last % 32:
        raise TypeError(f"{op}: src's last dim must be a static multiple of 32, got {shape_text(src.shape)}")
    if idx.dtype is not D.UINT32:
        raise TypeError(f"{op}: idx must be UINT32, got {idx.dtype.name}")
    if len(idx.shape) != len(src.shape) or not all(map(same_dim, idx.shape, src.shape)):
        raise TypeError(f"{op}: idx {shape_text(idx.shape)} must have src's shape {shape_text(src.shape)}")
    return TensorType([*src.shape[:-1], doubled(src.shape[-1])], src.dtype)


def deduce_mrgsort_format1(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tensor.mrgsort_format1"
    src = require_tensor(op, args[0], "src")
    require_dtype_in(op, src.dtype, R.SORT_DTYPES, "src")
    R.check_block_len(op, args[1])
    return TensorType(src.shape, src.dtype)


def deduce_mrgsort_format2(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tensor.mrgsort_format2"
    types = [require_tensor(op, a, f"source {i}") for i, a in enumerate(args)]
    for i, t in enumerate(types):
        require_dtype_in(op, t.dtype, R.SORT_DTYPES, f"source {i}")
    check_merge_sources(op, types, None)
    return TensorType([*types[0].shape[:-1], dims_sum([t.shape[-1] for t in types])], types[0].dtype)


_DIM = KwargSpec("dim", (int,))
OPDEFS: list[OpDef] = [
    OpDef("tensor.gather", deduce_gather, args=(ArgSpec("input"), ArgSpec("index")), kwargs=(_DIM,),
          doc="torch.gather: out[..i..] = input[..index[..i..] on axis dim..]."),
    OpDef("tensor.gather_compare", deduce_gather_compare, args=(ArgSpec("input"), ArgSpec("kvalue")),
          kwargs=(KwargSpec("cmp_mode", (int,)), KwargSpec("offset", (int,), 0), KwargSpec("out_cols", (int,)),
                  KwargSpec("count_dtype", (DataType,))),
          doc="Per row, the column indices (+ offset) of the elements that compare true against kvalue, packed "
              "left into [rows, out_cols] INT32, and their [1, rows] counts."),
    OpDef("tensor.gather_mask", deduce_gather_mask, args=(ArgSpec("input"),),
          kwargs=(KwargSpec("mask_pattern", (int,)), KwargSpec("output_dtype", (DataType,))),
          doc="The columns a MaskPattern selects, packed left (see tile.gather_mask)."),
    OpDef("tensor.gather_row", deduce_gather_row,
          args=(ArgSpec("acc"), ArgSpec("src"), ArgSpec("dst_offset"), ArgSpec("src_offset"), ArgSpec("shapes"),
                ArgSpec("valid_shape", optional=True)),
          kwargs=(KwargSpec("transpose", (bool,), False),),
          doc="acc with the [r, c] window of src at src_offset copied in at dst_offset (transposed if asked)."),
    OpDef("tensor.paged_gather", deduce_paged_gather,
          args=(ArgSpec("src"), ArgSpec("indices"), ArgSpec("block_table")),
          kwargs=(KwargSpec("block_size", (int,)), KwargSpec("size", (int,)), KwargSpec("col_off", (int,), 0),
                  KwargSpec("max_indices", (int,)), KwargSpec("is_trans", (bool,), False),
                  KwargSpec("is_b_matrix", (bool,), False),
                  KwargSpec("space", (MemorySpace,), MemorySpace.Mat)),
          doc="Rows of a paged pool: out[k] = src[block_table[i // block_size] * block_size + i % block_size, "
              "col_off : col_off + size] for i = indices[k] (k < max_indices; rows past the indices are 0)."),
    OpDef("tensor.scatter", deduce_scatter, args=(ArgSpec("input"), ArgSpec("index"), ArgSpec("src")),
          kwargs=(_DIM,), doc="torch.scatter along the last axis: out = input; out[i, index[i, j]] = src[i, j]."),
    OpDef("tensor.scatter_mask", deduce_scatter_mask, args=(ArgSpec("input"), ArgSpec("dst")),
          kwargs=(KwargSpec("mask_pattern", (int,)),),
          doc="dst with the columns a MaskPattern selects replaced by input's columns."),
    OpDef("tensor.scatter_update", deduce_scatter_update, args=(ArgSpec("input"), ArgSpec("index"), ArgSpec("src")),
          kwargs=(_DIM,), doc="input with row index.flat[r] (of input viewed [rows, d]) replaced by src row r."),
    OpDef("tensor.sort32", deduce_sort32, args=(ArgSpec("src"), ArgSpec("idx")),
          doc="tile.sort32 on a tensor: blocks of 32 sorted descending into (value, index-bits) pairs."),
    OpDef("tensor.mrgsort_format1", deduce_mrgsort_format1, args=(ArgSpec("src"), ArgSpec("block_len")),
          doc="tile.mrgsort_format1 on a tensor: groups of 4 sorted runs of block_len elements merged."),
    OpDef("tensor.mrgsort_format2", deduce_mrgsort_format2,
          args=(ArgSpec("src0"), ArgSpec("src1"), ArgSpec("src2", optional=True), ArgSpec("src3", optional=True)),
          kwargs=(KwargSpec("exhausted", (bool,), False),),
          doc="Merge 2-4 sorted (value, index) lists row by row; the last dims add up."),
]

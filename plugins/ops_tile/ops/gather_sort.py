"""OpDefs of the gather_sort family added for issue 14 (OPS.md "Gather / scatter", "Sort", tile.mgather /
tile.mscatter); the tensor forms are in gather_sort_tensor.py, the shared rules in gather_sort_rules.py.

IR layouts: `tile.mgather(mem, idx[, scratch][, valid_shape])` (kwargs coalesce 0 row / 1 elem, gather_oob,
target_memory; operand 2 is the scratch tensor when it is a tensor, else the valid_shape tuple),
`tile.mscatter(src, idx, output_tensor)`, `tile.gather_mask(src)` / `tile.scatter_mask(dst, src)` (kwarg
mask_pattern), `tile.sort32(src, idx)`, `tile.mrgsort_format1(src, block_len)`,
`tile.mrgsort_format2(src0, src1, tmp_or_src2[, tmp_or_src3[, tmp]])` (the last operand is the scratch whose
shape is the result's).

Lanes (docs/passes/lower_auto_vector_split.md): mgather's table and mscatter's destination are GM tensors (not lane operands); the
merge-sort scratch `tmp` is read by the deducer (it is the result shape), so it needs no declaration.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import MemorySpace
from pypto_core.ir.expr import Expr, MakeTuple
from pypto_core.ir.types import TensorType, TileType, Type
from pypto_core.ops.build import (
    doubled,
    require_dtype_in,
    require_rank,
    require_tensor,
    require_tile,
    same_dim,
    shape_text,
    static_int,
    tuple_elements,
)
from pypto_core.ops.opdef import ArgSpec, Effect, KwargSpec, OpDef, OpTraits, OutputMemory
from pypto_plugins.ops_tile.ops import gather_sort_rules as R
from pypto_plugins.ops_tile.ops.tile_elementwise import vec_operands
from pypto_plugins.ops_tile.ops.views import is_partial, same_view, valid_view

_VEC = OutputMemory(fixed=MemorySpace.Vec)
D = DataType


def _fresh(shape: Sequence[Expr], dtype: DataType, valid: Sequence[Expr] | None = None,
           space: MemorySpace | None = None) -> TileType:
    return TileType(list(shape), dtype, None, valid_view(valid, shape, space) if valid else None, None)


# -- tile.mgather / tile.mscatter ------------------------------------------------------------------
def mgather_extras(args: Sequence[Expr]) -> tuple[Expr | None, Expr | None]:
    """(scratch, valid_shape) of a tile.mgather call: operand 2 is the scratch when it is a tensor."""
    rest = list(args[2:])
    scratch = rest.pop(0) if rest and isinstance(rest[0].type, TensorType) else None
    valid = rest.pop(0) if rest and isinstance(rest[0], MakeTuple) else None
    if rest:
        raise TypeError(f"tile.mgather: unexpected operand {len(args) - len(rest)} (expected mem, idx, "
                        f"[scratch tensor], [valid_shape])")
    return scratch, valid


def deduce_mgather(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tile.mgather"
    mem = args[0].type
    if not isinstance(mem, TensorType):
        raise TypeError(f"{op}: mem must be a GM tensor, got {type(mem).__name__}")
    require_dtype_in(op, mem.dtype, R.MGATHER_DTYPES, "mem")
    coalesce, target = int(kwargs.get("coalesce", 0)), kwargs.get("target_memory", MemorySpace.Vec)
    if target not in (MemorySpace.Vec, MemorySpace.Mat):
        raise ValueError(f"{op}: target_memory must be Vec or Mat, got {target}")
    scratch, valid = mgather_extras(args)
    idx_t = args[1].type
    want = TileType if target is MemorySpace.Vec else TensorType
    if not isinstance(idx_t, want) or idx_t.dtype is not D.INT32 or len(idx_t.shape) != 2:
        kind = "an INT32 2-D tile" if target is MemorySpace.Vec else "an INT32 2-D GM tensor"
        raise TypeError(f"{op}: idx must be {kind} for target_memory={target.name}, got {idx_t}")
    if coalesce == 1:
        shape: list[Expr] = list(idx_t.shape)
    else:
        rows, cols = (static_int(d) for d in idx_t.shape)
        if cols == 1 and target is MemorySpace.Vec:
            n = idx_t.shape[0]
        elif rows == 1:
            n = idx_t.shape[1]
        else:
            raise TypeError(f"{op}: row mode (coalesce='row') takes a [1, n] index"
                            f"{' or [n, 1]' if target is MemorySpace.Vec else ''}, got {shape_text(idx_t.shape)}")
        shape = [n, mem.shape[-1]]
    if target is MemorySpace.Vec:
        if valid is not None:
            raise TypeError(f"{op}: valid_shape is for a Mat target only")
        keep = idx_t.valid_shape if coalesce == 1 and isinstance(idx_t, TileType) and is_partial(idx_t) else None
        return _fresh(shape, mem.dtype, keep, MemorySpace.Vec)
    _check_mat_target(op, mem, shape, scratch, coalesce)
    vs = tuple_elements(valid) if valid is not None else None
    if vs is not None:
        if len(vs) != 2 or any(static_int(v) is None for v in vs):
            raise TypeError(f"{op}: valid_shape must be 2 static integers, got {len(vs)} operand(s)")
        if any(static_int(v) > static_int(s) for v, s in zip(vs, shape)):  # type: ignore[operator]
            raise ValueError(f"{op}: valid_shape {shape_text(vs)} exceeds the result shape {shape_text(shape)}")
    return _fresh(shape, mem.dtype, vs, MemorySpace.Mat)


def _check_mat_target(op: str, mem: TensorType, shape: list[Expr], scratch: Expr | None, coalesce: int) -> None:
    rows, cols = static_int(shape[0]), static_int(shape[1])
    per_block = 32 // max(1, mem.dtype.get_bit() // 8)
    if rows is None or cols is None or rows % 16 or cols % per_block:
        raise TypeError(f"{op}: a Mat result must be static with rows % 16 == 0 and cols % {per_block} == 0 "
                        f"({mem.dtype.name}), got {shape_text(shape)}")
    if coalesce == 1:
        if scratch is None:
            raise TypeError(f"{op}: element mode into Mat needs a GM scratch tensor (scratch=...)")
        st = scratch.type
        assert isinstance(st, TensorType)
        size = 1
        for d in st.shape:
            s = static_int(d)
            if s is None:
                raise TypeError(f"{op}: scratch must have a static shape, got {shape_text(st.shape)}")
            size *= s
        if st.dtype is not mem.dtype or size < rows * cols:
            raise TypeError(f"{op}: scratch must be {mem.dtype.name} with at least {rows * cols} elements, got "
                            f"{st.dtype.name} {shape_text(st.shape)}")


def mgather_effects(kwargs: Mapping[str, Any]) -> Mapping[int, Effect]:
    """The scratch tensor is written only by an element-mode gather into Mat (OPS.md)."""
    if kwargs.get("target_memory") is MemorySpace.Mat and int(kwargs.get("coalesce", 0)) == 1:
        return {2: Effect.WRITE}
    return {}


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


# -- mask gather / scatter -------------------------------------------------------------------------
def deduce_gather_mask(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tile.gather_mask"
    src = require_tile(op, args[0], "src")
    require_rank(op, src.shape, 2, "src")
    require_dtype_in(op, src.dtype, R.GATHER_DTYPES, "src")
    cols = R.gathered_cols(op, src.shape[1], int(kwargs["mask_pattern"]))
    dtype = R.same_bits_dtype(op, src.dtype, kwargs.get("output_dtype"))
    return _fresh([src.shape[0], cols], dtype)


def deduce_scatter_mask(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
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


# -- sort ------------------------------------------------------------------------------------------
def _sort_src(op: str, e: Expr, what: str) -> TileType:
    t = require_tile(op, e, what)
    require_dtype_in(op, t.dtype, R.SORT_DTYPES, what)
    return t


def deduce_sort32(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tile.sort32"
    src = _sort_src(op, args[0], "src")
    idx = require_tile(op, args[1], "idx")
    if not idx.dtype.is_int():
        raise TypeError(f"{op}: idx must hold integer indices, got {idx.dtype.name}")
    if len(idx.shape) != len(src.shape) or not all(map(same_dim, idx.shape, src.shape)):
        raise TypeError(f"{op}: idx {shape_text(idx.shape)} must have src's shape {shape_text(src.shape)}")
    return _fresh([*src.shape[:-1], doubled(src.shape[-1])], src.dtype)


def deduce_mrgsort_format1(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tile.mrgsort_format1"
    src = _sort_src(op, args[0], "src")
    R.check_block_len(op, args[1])
    return _fresh(src.shape, src.dtype)


def deduce_mrgsort_format2(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tile.mrgsort_format2"
    *srcs, tmp_e = args
    tmp = require_tile(op, tmp_e, "tmp (the last operand)")
    types = [_sort_src(op, e, f"source {i}") for i, e in enumerate(srcs)]
    check_merge_sources(op, types, tmp.shape)
    return _fresh(tmp.shape, types[0].dtype)


def check_merge_sources(op: str, types: Sequence[Any], out_shape: Sequence[Expr] | None) -> None:
    """Sources of one dtype and rank with equal leading dims; their rows fit the result (when given)."""
    first = types[0]
    total: int | None = 0
    for i, t in enumerate(types):
        if t.dtype is not first.dtype:
            raise TypeError(f"{op}: source {i} is {t.dtype.name} but source 0 is {first.dtype.name}")
        if len(t.shape) != len(first.shape) or not all(map(same_dim, t.shape[:-1], first.shape[:-1])):
            raise TypeError(f"{op}: source {i} {shape_text(t.shape)} and source 0 {shape_text(first.shape)} "
                            f"must agree on all but the last dim")
        n = static_int(t.shape[-1])
        total = None if total is None or n is None else total + n
    if out_shape is None:
        return
    if len(out_shape) != len(first.shape) or not all(map(same_dim, out_shape[:-1], first.shape[:-1])):
        raise TypeError(f"{op}: tmp {shape_text(out_shape)} must have the sources' leading dims "
                        f"{shape_text(first.shape[:-1])}")
    width = static_int(out_shape[-1])
    if total is not None and width is not None and total > width:
        raise TypeError(f"{op}: the sources hold {total} elements per row but tmp has room for {width}")


# A merge couples a whole row: halving the row (a LEFT_RIGHT split) would merge only each lane's half, so the
# split passes treat the last axis like a reduced one (rejected as the split axis); rows stay independent.
_MERGES_ROWS = OpTraits(reduction_axes=(1,))

OPDEFS: list[OpDef] = [
    OpDef("tile.mgather", deduce_mgather,
          args=(ArgSpec("mem"), ArgSpec("idx"), ArgSpec("scratch", optional=True),
                ArgSpec("valid_shape", optional=True)),
          kwargs=(KwargSpec("coalesce", (int,), 0, choices=(0, 1)),
                  KwargSpec("gather_oob", (int,), 0, choices=(0, 1, 2, 3)),
                  KwargSpec("target_memory", (MemorySpace,), MemorySpace.Vec,
                            choices=(MemorySpace.Vec, MemorySpace.Mat))),
          effects=mgather_effects,
          output_memory=OutputMemory(from_kwarg="target_memory", kwarg_default=MemorySpace.Vec),
          doc="Gather from a GM table by index: row mode out[k, :] = mem2d[idx[k], :], element mode "
              "out[i, j] = mem.flat[idx[i, j]]; gather_oob 0 undefined (an error here), 1 clamp, 2 wrap, 3 zero."),
    OpDef("tile.mscatter", deduce_mscatter, args=(ArgSpec("src"), ArgSpec("idx"), ArgSpec("output_tensor")),
          effects={2: Effect.WRITE}, input_memory=vec_operands(0, 1),
          doc="Scatter a tile into a GM tensor: output_tensor.flat[idx[i, j]] = src[i, j]; returns the tensor."),
    OpDef("tile.gather_mask", deduce_gather_mask, args=(ArgSpec("src"),),
          kwargs=(KwargSpec("mask_pattern", (int,), required=True, choices=tuple(R.MASK_SELECT)),
                  KwargSpec("output_dtype", (DataType,))),
          output_memory=_VEC, input_memory=vec_operands(0),
          doc="Keep the columns a MaskPattern selects (P0101 even, P1010 odd, P0001..P1000 column k of 4, "
              "P1111 all), packed left; output_dtype reinterprets the bits."),
    OpDef("tile.scatter_mask", deduce_scatter_mask, args=(ArgSpec("dst"), ArgSpec("src")),
          kwargs=(KwargSpec("mask_pattern", (int,), required=True, choices=tuple(R.MASK_SELECT)),),
          effects={0: Effect.READ_WRITE}, output_memory=_VEC, input_memory=vec_operands(0, 1),
          doc="The inverse of gather_mask: dst with the columns the MaskPattern selects replaced by src's columns."),
    OpDef("tile.sort32", deduce_sort32, args=(ArgSpec("src"), ArgSpec("idx")),
          output_memory=_VEC, input_memory=vec_operands(0, 1),
          doc="TSORT32: each block of 32 along the last axis sorted descending (ties keep order) into "
              "(value, index-bits) pairs; the last dim doubles."),
    OpDef("tile.mrgsort_format1", deduce_mrgsort_format1, args=(ArgSpec("src"), ArgSpec("block_len")),
          output_memory=_VEC, input_memory=vec_operands(0), traits=_MERGES_ROWS,
          doc="TMRGSORT single-list form: per row, every 4 consecutive sorted runs of block_len elements "
              "((value, index) pairs) merge into one run, descending."),
    OpDef("tile.mrgsort_format2", deduce_mrgsort_format2,
          args=(ArgSpec("src0"), ArgSpec("src1"), ArgSpec("tmp_or_src2"), ArgSpec("tmp_or_src3", optional=True),
                ArgSpec("tmp", optional=True)),
          kwargs=(KwargSpec("exhausted", (bool,), False),),
          output_memory=_VEC, input_memory=vec_operands(0, 1, 2, 3, 4), traits=_MERGES_ROWS,
          doc="TMRGSORT multi-list form: merge 2-4 sorted (value, index) lists row by row into tmp's shape; "
              "exhausted=True stops at the first list that runs out (the rest of the row is poison)."),
]


def _tensor_opdefs() -> list[OpDef]:
    from pypto_plugins.ops_tile.ops.gather_sort_tensor import OPDEFS as TENSOR_OPDEFS

    return TENSOR_OPDEFS


OPDEFS += _tensor_opdefs()

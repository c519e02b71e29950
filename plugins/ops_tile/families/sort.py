"""Sorts: tile.sort32 / tensor.sort32 and the merge sorts tile.mrgsort_format1 / mrgsort_format2 and
tensor.mrgsort_format1 / mrgsort_format2 (and the DSL's `mrgsort`, which picks the form).

Sort data: `sort32(src, idx)` sorts each block of 32 along the last axis descending (ties keep their order,
NaN poison sorts last) into (value, index) pairs, so the last dim doubles and a sorted list of n entries is 2n
elements of the value dtype; the index is stored as the bits of the value dtype (UINT32 bits for FP32, the low
16 bits for FP16), as TSORT32 writes it. Values are FP16 / FP32; tensor.sort32 takes a static multiple of 32
columns and UINT32 indices of src's shape.

Merges compare the values (even positions) of (value, index) pairs; a stable descending sort of the
concatenated sorted lists is their merge (ties: the earlier list first).
* `mrgsort_format1(src, block_len)`: per row, every 4 consecutive sorted runs of block_len elements merge into
  one run (block_len a positive multiple of 64: one sort32 block is 32 pairs).
* `tile.mrgsort_format2(src0, src1, tmp_or_src2[, tmp_or_src3[, tmp]])` kwarg `exhausted`: merge 2-4 lists
  row by row into the last operand, the scratch whose shape is the result's; exhausted=True stops after the
  pair that empties the first list (the rest of the row is poison). `tensor.mrgsort_format2(src0, src1[,
  src2[, src3]])`: the last dims add up. The tile scratch is read by the deducer (it is the result shape), so
  it needs no lane declaration.

A merge couples a whole row: halving the row (a LEFT_RIGHT split) would merge only each lane's half, so the
split passes treat the last axis like a reduced one (rejected as the split axis); rows stay independent.
Memory: tile operands are read from Vec and the result is Vec. Tile forms: the tile op of the same name;
mrgsort_format2 gets a tile.create of the result as its scratch.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import MemorySpace
from pypto_core.ir.expr import Call, Expr, MakeTuple
from pypto_core.ir.span import Span
from pypto_core.ir.types import TensorType, TileType, Type
from pypto_core.ops.build import (
    dims_sum,
    doubled,
    dsl_entry,
    require_dtype_in,
    require_tensor,
    require_tile,
    same_dim,
    shape_text,
    static_int,
    to_bool,
)
from pypto_core.ops.family import OpFamily
from pypto_core.ops.opdef import ArgSpec, KwargSpec, OpDef, OpTraits
from pypto_core.ops.registry import create_op_call
from pypto_core.ops.tile_form import TileForm, TileLowering
from pypto_plugins.ops_tile.common import indexing as R
from pypto_plugins.ops_tile.common.dsl import dispatch_between, registered
from pypto_plugins.ops_tile.common.tile_forms import bound
from pypto_plugins.ops_tile.common.views import VEC_RESULT, row_major, vec_operands

family = OpFamily("sort", semantics="pypto_plugins.ops_tile.semantics.sort")

D = DataType


# -- type rules ---------------------------------------------------------------------------------------------
def _sort_src(op: str, e: Expr, what: str) -> TileType:
    t = require_tile(op, e, what)
    require_dtype_in(op, t.dtype, R.SORT_DTYPES, what)
    return t


def deduce_tile_sort32(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tile.sort32"
    src = _sort_src(op, args[0], "src")
    idx = require_tile(op, args[1], "idx")
    if not idx.dtype.is_int():
        raise TypeError(f"{op}: idx must hold integer indices, got {idx.dtype.name}")
    if len(idx.shape) != len(src.shape) or not all(map(same_dim, idx.shape, src.shape)):
        raise TypeError(f"{op}: idx {shape_text(idx.shape)} must have src's shape {shape_text(src.shape)}")
    return TileType([*src.shape[:-1], doubled(src.shape[-1])], src.dtype, None, None, None)


def deduce_tile_mrgsort_format1(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tile.mrgsort_format1"
    src = _sort_src(op, args[0], "src")
    R.check_block_len(op, args[1])
    return TileType(list(src.shape), src.dtype, None, None, None)


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


def deduce_tile_mrgsort_format2(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tile.mrgsort_format2"
    *srcs, tmp_e = args
    tmp = require_tile(op, tmp_e, "tmp (the last operand)")
    types = [_sort_src(op, e, f"source {i}") for i, e in enumerate(srcs)]
    check_merge_sources(op, types, tmp.shape)
    return TileType(list(tmp.shape), types[0].dtype, None, None, None)


def deduce_tensor_sort32(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
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


def deduce_tensor_mrgsort_format1(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tensor.mrgsort_format1"
    src = require_tensor(op, args[0], "src")
    require_dtype_in(op, src.dtype, R.SORT_DTYPES, "src")
    R.check_block_len(op, args[1])
    return TensorType(src.shape, src.dtype)


def deduce_tensor_mrgsort_format2(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tensor.mrgsort_format2"
    types = [require_tensor(op, a, f"source {i}") for i, a in enumerate(args)]
    for i, t in enumerate(types):
        require_dtype_in(op, t.dtype, R.SORT_DTYPES, f"source {i}")
    check_merge_sources(op, types, None)
    return TensorType([*types[0].shape[:-1], dims_sum([t.shape[-1] for t in types])], types[0].dtype)


# -- ops ----------------------------------------------------------------------------------------------------
_MERGES_ROWS = OpTraits(reduction_axes=(1,))  # the last axis is coupled, like a reduced one (module docstring)
_EXHAUSTED = KwargSpec("exhausted", (bool,), False)

family.op(OpDef("tile.sort32", deduce_tile_sort32, args=(ArgSpec("src"), ArgSpec("idx")),
                output_memory=VEC_RESULT, input_memory=vec_operands(0, 1),
                doc="TSORT32: each block of 32 along the last axis sorted descending (ties keep order) into "
                    "(value, index-bits) pairs; the last dim doubles."), dsl="tile.sort32")
family.op(OpDef("tile.mrgsort_format1", deduce_tile_mrgsort_format1, args=(ArgSpec("src"), ArgSpec("block_len")),
                output_memory=VEC_RESULT, input_memory=vec_operands(0), traits=_MERGES_ROWS,
                doc="TMRGSORT single-list form: per row, every 4 consecutive sorted runs of block_len elements "
                    "((value, index) pairs) merge into one run, descending."), dsl="tile.mrgsort_format1")
family.op(OpDef("tile.mrgsort_format2", deduce_tile_mrgsort_format2,
                args=(ArgSpec("src0"), ArgSpec("src1"), ArgSpec("tmp_or_src2"), ArgSpec("tmp_or_src3", optional=True),
                      ArgSpec("tmp", optional=True)),
                kwargs=(_EXHAUSTED,), output_memory=VEC_RESULT, input_memory=vec_operands(0, 1, 2, 3, 4),
                traits=_MERGES_ROWS,
                doc="TMRGSORT multi-list form: merge 2-4 sorted (value, index) lists row by row into tmp's shape; "
                    "exhausted=True stops at the first list that runs out (the rest of the row is poison)."))
family.op(OpDef("tensor.sort32", deduce_tensor_sort32, args=(ArgSpec("src"), ArgSpec("idx")),
                doc="tile.sort32 on a tensor: blocks of 32 sorted descending into (value, index-bits) pairs."),
          dsl="tensor.sort32")
family.op(OpDef("tensor.mrgsort_format1", deduce_tensor_mrgsort_format1, args=(ArgSpec("src"), ArgSpec("block_len")),
                doc="tile.mrgsort_format1 on a tensor: groups of 4 sorted runs of block_len elements merged."),
          dsl="tensor.mrgsort_format1")
family.op(OpDef("tensor.mrgsort_format2", deduce_tensor_mrgsort_format2,
                args=(ArgSpec("src0"), ArgSpec("src1"), ArgSpec("src2", optional=True), ArgSpec("src3", optional=True)),
                kwargs=(_EXHAUSTED,), doc="Merge 2-4 sorted (value, index) lists row by row; the last dims add up."))


# -- tile forms ---------------------------------------------------------------------------------------------
def lower_tensor_mrgsort_format2(ctx: TileLowering, call: Call) -> Expr:
    """The tile op needs its result-shaped scratch `tmp`: a tile.create of the result."""
    srcs = [ctx.tile(a) for a in call.args]
    t = call.type
    assert isinstance(t, TensorType)
    tmp = bound(ctx, "tile.create", [MakeTuple(list(t.shape))], {"dtype": t.dtype}, "mrgsort_tmp")
    return ctx.call("tile.mrgsort_format2", [*srcs, tmp], dict(call.kwargs))


# Its sources are declared Vec operands: a GM source is bridged (`<name>_vec`), not entry-loaded (PyPTO's rule 5).
family.implement("tile_form", "tensor.mrgsort_format2", TileForm(lower=lower_tensor_mrgsort_format2, operand_spaces=(
    (0, MemorySpace.Vec, None), (1, MemorySpace.Vec, None), (2, MemorySpace.Vec, None), (3, MemorySpace.Vec, None))))


family.implement("tile_form", "tensor.sort32", TileForm(op="tile.sort32"))
family.implement("tile_form", "tensor.mrgsort_format1", TileForm(op="tile.mrgsort_format1"))


# -- DSL ----------------------------------------------------------------------------------------------------
def _exhausted(exhausted: Any) -> dict[str, Any]:
    return {"exhausted": True} if to_bool(exhausted, "exhausted") else {}


@family.dsl("tile.mrgsort_format2")
@dsl_entry
def tile_mrgsort_format2(src0: Expr, src1: Expr, tmp_or_src2: Expr, tmp_or_src3: Expr | None = None,
                         tmp: Expr | None = None, span: Span | None = None, *, exhausted: Any = False) -> Call:
    args = [a for a in (src0, src1, tmp_or_src2, tmp_or_src3, tmp) if a is not None]
    return create_op_call("tile.mrgsort_format2", args, _exhausted(exhausted), span=span)


@family.dsl("tensor.mrgsort_format2")
@dsl_entry
def tensor_mrgsort_format2(src0: Expr, src1: Expr, src2: Expr | None = None, src3: Expr | None = None,
                           span: Span | None = None, *, exhausted: Any = False) -> Call:
    args = [a for a in (src0, src1, src2, src3) if a is not None]
    return create_op_call("tensor.mrgsort_format2", args, _exhausted(exhausted), span=span)


_TILE_FORMAT1, _TENSOR_FORMAT1 = registered("tile.mrgsort_format1"), registered("tensor.mrgsort_format1")


@family.dsl("tile.mrgsort")
@dsl_entry
def tile_mrgsort(src0: Expr, src1: Expr | None = None, src2: Expr | None = None, src3: Expr | None = None,
                 tmp: Expr | None = None, exhausted: Any = False, span: Span | None = None, *,
                 block_len: Any = None) -> Call:
    """block_len -> tile.mrgsort_format1(src0, block_len); else the 2-4 way merge into tmp (format2)."""
    if block_len is not None:
        if src1 is not None or tmp is not None:
            raise TypeError("the single-list merge (block_len=) takes one source and no tmp")
        return _TILE_FORMAT1(src0, block_len, span=span)
    srcs = [s for s in (src0, src1, src2, src3) if s is not None]
    if len(srcs) < 2 or tmp is None:
        raise TypeError("a tile merge sort takes block_len= (one source) or 2-4 sorted sources and tmp=")
    return tile_mrgsort_format2(*srcs, tmp, span=span, exhausted=exhausted)


@family.dsl("tensor.mrgsort")
@dsl_entry
def tensor_mrgsort(src0: Expr, src1: Expr | None = None, src2: Expr | None = None, src3: Expr | None = None,
                   span: Span | None = None, *, exhausted: Any = False, block_len: Any = None) -> Call:
    if block_len is not None:
        if src1 is not None:
            raise TypeError("the single-list merge (block_len=) takes one source")
        return _TENSOR_FORMAT1(src0, block_len, span=span)
    if src1 is None:
        raise TypeError("a tensor merge sort takes block_len= (one source) or 2-4 sorted sources")
    return tensor_mrgsort_format2(src0, src1, src2, src3, span=span, exhausted=exhausted)


def _mrgsort_tensor(x: Any, *args: Any, span: Span | None = None, tmp: Any = None, **kwargs: Any) -> Any:
    if tmp is not None or len(args) > 3:
        raise TypeError("a tensor merge sort takes no tmp (pl.tensor.mrgsort)")
    return tensor_mrgsort(x, *args, span=span, **kwargs)


family.dsl_function("sort32", dispatch_between("sort32", registered("tile.sort32"), registered("tensor.sort32")))
family.dsl_function("mrgsort", dispatch_between("mrgsort", tile_mrgsort, _mrgsort_tensor))


# The row-major tiles the backend's instruction needs (ResolveBackendOpLayouts, docs/plugins.md, op interfaces).
for _row_major_op in ("mrgsort_format2", "sort32"):
    family.implement("row_major_layout", f"tile.{_row_major_op}", row_major())
family.implement("row_major_layout", "tile.mrgsort_format1", row_major((0,)))


# Memory planning facts (docs/memory_planning.md): where a result's buffer lives, which operands it must not share.
family.set_traits("tile.mrgsort_format1", "tile.mrgsort_format2", "tile.sort32", output_must_not_alias="all")

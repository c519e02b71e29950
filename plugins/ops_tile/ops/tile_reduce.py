"""Row / column reductions and row / column broadcasts of Vec tiles (rank >= 2).

IR layouts (docs/reference/ops.md): `tile.col_sum(x[, tmp])` (col_max, col_min) -> [1, ...]; `tile.row_sum(x, tmp)`
(row_max, row_min) -> [..., 1]; `tile.row_argmax(x, tmp)` -> [..., 1] INT32; `tile.row_expand_mul(x, v)`
with v [M, 1] (also _add/_sub/_div) and `tile.col_expand_mul(x, v)` with v [1, N] -> x's shape.
The ops PyPTO adds to these families (row_prod, the arg-reductions, row/col_expand(_max/_min/_expdif))
are in ops/broadcast_reduce.py; they share the deducers below.

Lanes (docs/passes/lower_auto_vector_split.md): the tmp of row_sum / row_max / row_min / col_* is Scratch (the deducer never reads
its shape); row_argmax requires a tmp of exactly the source's shape, so the deducer decides it and it
has no declaration.

Dtypes and checks (OPS.md `result:` lines): a row reduction's tmp has the operand's dtype and rank and
is not smaller in any dim; `tile.row_min`
takes INT16 / INT32 / FP16 / FP32 row-major operands; a col_sum tmp has the operand's dtype. A
broadcast promotes its two dtypes (`tile.row_expand_add`: one dtype of INT8 / INT16 / INT32 / FP16 /
FP32, its row_vec a [M, 1] column or a row-major 32-byte carrier [M, 32 / elem_bytes], optional tmp).

Memory: every tile operand is declared Vec (OPS.md `mem:` lines); the deducers do not check spaces,
InferTileMemorySpace places the operands.

Choices where OPS.md is silent or looser: col_max / col_min accept an optional tmp (PyPTO's take
none: accepting one is a superset, and this registry had it), Scratch and Vec like col_sum's; a
col_expand_* vector must be [1, N] with the target's N (PyPTO does not check its shape; checking it
lets the split passes' re-deduction decide the operand); the result of a row reduction keeps the
implicit layout of its shape (col_major for [M, 1] with M > 1); OPS.md's "input valid not provably empty"
is not checked: the split passes give an idle AIV lane an empty valid region ([0, 0]) and re-deduce its
calls, so the check would reject their output (an empty region reduces to poison).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import MemorySpace, TileLayout
from pypto_core.ir.expr import ConstInt, Expr
from pypto_core.ir.types import TileType, Type, dims_equal
from pypto_core.ops.build import (
    promote_dtypes,
    require_dtype_in,
    require_tile,
    shape_text,
    static_int,
)
from pypto_core.ops.opdef import ArgSpec, LaneCategory, OpDef, OpTraits, OutputMemory
from pypto_plugins.ops_tile.ops.tile_elementwise import result_tile, vec_operands
from pypto_plugins.ops_tile.ops.views import is_partial, valid_view

_VEC = OutputMemory(fixed=MemorySpace.Vec)
ROW = ("row_sum", "row_max", "row_min")
COL = ("col_sum", "col_max", "col_min")
EXPAND = ("add", "sub", "mul", "div")
# OPS.md tile.row_min / tensor.row_min: "dtype in {INT16,INT32,FP16,FP32}" (row_max has no such rule).
ROW_MIN_DTYPES = (DataType.INT16, DataType.INT32, DataType.FP16, DataType.FP32)
# OPS.md tile.row_expand_add: "same dtype in {INT8,INT16,INT32,FP16,FP32}".
ROW_EXPAND_ADD_DTYPES = (DataType.INT8, DataType.INT16, DataType.INT32, DataType.FP16, DataType.FP32)


def require_min_rank(op: str, dims: Sequence[Expr], rank: int, what: str) -> None:
    if len(dims) < rank:
        raise TypeError(f"{op}: {what} must be at least {rank}-D, got {len(dims)}-D {shape_text(dims)}")


def _reduced(src: TileType, axis: int, dtype: DataType) -> TileType:
    shape, valid = list(src.shape), list(src.valid_shape)
    shape[axis] = valid[axis] = ConstInt(1)
    view = valid_view(valid, shape, MemorySpace.Vec) if is_partial(src) else None
    return TileType(shape, dtype, None, view, None)


def check_row_tmp(op: str, src: TileType, tmp: TileType) -> None:
    """OPS.md row reductions: "tmp_tile same dtype/rank and not smaller per dim"."""
    if tmp.dtype is not src.dtype:
        raise TypeError(f"{op}: tmp is {tmp.dtype.name} but the operand is {src.dtype.name}; the tmp tile must "
                        f"have the operand's dtype")
    if len(tmp.shape) != len(src.shape):
        raise TypeError(f"{op}: tmp is {len(tmp.shape)}-D but the operand is {len(src.shape)}-D")
    for t, s in zip(tmp.shape, src.shape):
        tv, sv = static_int(t), static_int(s)
        if tv is not None and sv is not None and tv < sv:
            raise TypeError(f"{op}: tmp {shape_text(tmp.shape)} is smaller than the operand {shape_text(src.shape)}")


def _require_row_major(op: str, src: TileType) -> None:
    """OPS.md tile.row_min: "input blayout row_major, slayout none_box"."""
    view = src.effective_view()
    if view.blayout is not TileLayout.row_major or view.slayout is not TileLayout.none_box:
        raise TypeError(f"{op}: the operand must be row_major / none_box, got blayout={view.blayout.name}, "
                        f"slayout={view.slayout.name}")


def reduce_deducer(op: str, axis: int, exact_tmp: bool = False, dtype: DataType | None = None,
                   allowed: tuple[DataType, ...] | None = None, row_tmp: bool = False,
                   same_dtype_tmp: bool = False, row_major: bool = False):
    """axis -1: row_* -> [..., 1]; axis 0: col_* -> [1, ...] (OPS.md "Tile[1, rest of shape]")."""

    def deduce(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
        src = require_tile(op, args[0], "the operand")
        require_min_rank(op, src.shape, 2, "the operand")
        if allowed is not None:
            require_dtype_in(op, src.dtype, allowed, "the operand")
        if row_major:
            _require_row_major(op, src)
        if len(args) > 1:
            tmp = require_tile(op, args[1], "tmp")
            if exact_tmp and (not dims_equal(tmp.shape, src.shape) or tmp.dtype is not src.dtype):
                raise TypeError(f"{op}: tmp must have the operand's shape and dtype ({shape_text(src.shape)} "
                                f"{src.dtype.name}), got {shape_text(tmp.shape)} {tmp.dtype.name}")
            if row_tmp:
                check_row_tmp(op, src, tmp)
            if same_dtype_tmp and tmp.dtype is not src.dtype:
                raise TypeError(f"{op}: tmp is {tmp.dtype.name} but the operand is {src.dtype.name}; the tmp "
                                f"tile must have the operand's dtype")
        return _reduced(src, axis, dtype or src.dtype)

    return deduce


def _rows_match(vec: Expr, src: Expr) -> bool:
    """OPS.md "rows match (if static)": a dynamic extent on either side is not checked."""
    a, b = static_int(vec), static_int(src)
    return a is None or b is None or a == b


def expand_deducer(op: str, axis: int, promote: bool = True):
    """`v` holds one value per row (axis 0: [M, 1]) or per column (axis 1: [1, N]) of the last two dims."""

    def deduce(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
        src = require_tile(op, args[0], "the tile")
        vec = require_tile(op, args[1], "the vector")
        require_min_rank(op, src.shape, 2, "the tile")
        require_min_rank(op, vec.shape, 2, "the vector")
        vr, vc, sr, sc = vec.shape[-2], vec.shape[-1], src.shape[-2], src.shape[-1]
        ok = (_rows_match(vr, sr) and static_int(vc) == 1) if axis == 0 else \
            (_rows_match(vc, sc) and static_int(vr) == 1)
        if not ok:
            want = "[M, 1]" if axis == 0 else "[1, N]"
            raise TypeError(f"{op}: the vector must be {want} for a {shape_text(src.shape)} tile, got "
                            f"{shape_text(vec.shape)}")
        return result_tile(src.shape, promote_dtypes(src.dtype, vec.dtype, op), src)

    return deduce


def deduce_row_expand_add(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    """OPS.md tile.row_expand_add: one dtype; row_vec a DN [M, 1] column or a row-major 32-byte carrier."""
    op = "tile.row_expand_add"
    src = require_tile(op, args[0], "the tile")
    vec = require_tile(op, args[1], "the vector")
    require_min_rank(op, src.shape, 2, "the tile")
    require_min_rank(op, vec.shape, 2, "the vector")
    require_dtype_in(op, src.dtype, ROW_EXPAND_ADD_DTYPES, "the tile")
    if vec.dtype is not src.dtype:
        raise TypeError(f"{op}: the vector is {vec.dtype.name} but the tile is {src.dtype.name}; both must have "
                        f"one dtype")
    if len(args) > 2:
        require_tile(op, args[2], "tmp")
    carrier = 32 // max(1, src.dtype.get_bit() // 8)
    cols = static_int(vec.shape[-1])
    if not _rows_match(vec.valid_shape[-2], src.valid_shape[-2]) or cols not in (1, carrier):
        raise TypeError(f"{op}: the vector must be [M, 1] (or a row-major [M, {carrier}] carrier) with the tile's "
                        f"valid rows for a {shape_text(src.shape)} tile (valid {shape_text(src.valid_shape)}), "
                        f"got {shape_text(vec.shape)} (valid {shape_text(vec.valid_shape)})")
    _require_row_major(op, src)
    return result_tile(src.shape, src.dtype, src)


def _op(name: str, deduce: Any, args: tuple[ArgSpec, ...], doc: str, **extra: Any) -> OpDef:
    """Every tile operand (the tile, its tmp / vector) is read from Vec."""
    return OpDef(f"tile.{name}", deduce, args=args, output_memory=_VEC,
                 input_memory=vec_operands(*range(len(args))), doc=doc, **extra)


_SCRATCH_TMP = {1: LaneCategory.SCRATCH}
_WHAT = {"sum": "Sum", "max": "Maximum", "min": "Minimum", "prod": "Product"}
_VERB = {"add": "plus", "sub": "minus", "mul": "times", "div": "divided by"}


def row_reduce_op(n: str, allowed: tuple[DataType, ...] | None = None, row_major: bool = False) -> OpDef:
    return _op(n, reduce_deducer(f"tile.{n}", -1, allowed=allowed, row_tmp=True, row_major=row_major),
               (ArgSpec("tile"), ArgSpec("tmp_tile")),
               f"{_WHAT[n[4:]]} of each row over its valid columns -> [..., 1] (tmp_tile: scratch, at least the "
               f"operand's shape).", lane_invariant=_SCRATCH_TMP, traits=OpTraits(reduction_axes=(1,)))


def col_reduce_op(n: str, tmp: bool = True) -> OpDef:
    args = (ArgSpec("tile"), ArgSpec("tmp_tile", optional=True)) if tmp else (ArgSpec("tile"),)
    return _op(n, reduce_deducer(f"tile.{n}", 0, same_dtype_tmp=n == "col_sum"), args,
               f"{_WHAT[n[4:]]} of each column over its valid rows -> [1, ...].",
               lane_invariant=_SCRATCH_TMP if tmp else {}, traits=OpTraits(reduction_axes=(0,)))


OPDEFS = [
    *[row_reduce_op(n, ROW_MIN_DTYPES if n == "row_min" else None, row_major=n == "row_min") for n in ROW],
    _op("row_argmax", reduce_deducer("tile.row_argmax", -1, exact_tmp=True, dtype=DataType.INT32),
        (ArgSpec("tile"), ArgSpec("tmp_tile")),
        "Column index (INT32) of the maximum of each row's valid columns, the first on ties -> [..., 1].",
        traits=OpTraits(reduction_axes=(1,))),
    *[col_reduce_op(n) for n in COL],
    _op("row_expand_add", deduce_row_expand_add, (ArgSpec("tile"), ArgSpec("row_vec"), ArgSpec("tmp", optional=True)),
        "tile[i, j] + row_vec[i, 0] (one dtype; row_vec a [M, 1] column or a row-major 32-byte carrier whose "
        "element 0 is used).", lane_invariant={2: LaneCategory.SCRATCH}),
    *[_op(f"row_expand_{n}", expand_deducer(f"tile.row_expand_{n}", 0), (ArgSpec("tile"), ArgSpec("row_vec")),
          f"tile[i, j] {_VERB[n]} row_vec[i, 0] (promoted dtype).") for n in EXPAND if n != "add"],
    *[_op(f"col_expand_{n}", expand_deducer(f"tile.col_expand_{n}", 1), (ArgSpec("target"), ArgSpec("col_tile")),
          f"target[i, j] {_VERB[n]} col_tile[0, j] (promoted dtype).") for n in EXPAND],
]

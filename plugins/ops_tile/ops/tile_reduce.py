"""Row / column reductions and row / column broadcasts of 2-D Vec tiles.

IR layouts (API.md 3.3): `tile.col_sum(x[, tmp])` (col_max, col_min) -> [1, N];
`tile.row_sum(x, tmp)` (row_max, row_min) -> [M, 1]; `tile.row_argmax(x, tmp)` -> [M, 1] INT32;
`tile.row_expand_mul(x, v)` with v [M, 1] (also _add/_sub/_div) and `tile.col_expand_mul(x, v)`
with v [1, N] -> x's type.

Lanes (seed 003): the tmp of row_sum / row_max / row_min / col_* is Scratch (the deducer never reads
it); row_argmax requires a tmp of exactly the source's shape, so the deducer decides it and it has
no declaration.

Dtypes (OPS.md `result:` lines): a row reduction's tmp has the operand's dtype and rank and is not
smaller in any dim; `tile.row_min` takes INT16 / INT32 / FP16 / FP32 (row_sum / row_max any dtype).

Memory: both operands of every op are declared Vec (OPS.md `mem:` lines); the deducers do not check
spaces, InferTileMemorySpace places the operands.

Choices where API.md is silent: row_argmax yields INT32 indices; col_* accept an optional tmp, also
Scratch and Vec (PyPTO's col_max / col_min take none); the broadcast vector must match the tile's
rows (cols) exactly.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import MemorySpace
from pypto_core.ir.expr import ConstInt, Expr
from pypto_core.ir.types import TileType, Type, dims_equal
from pypto_core.ops.build import (
    require_dtype_in,
    require_rank,
    require_tile,
    same_dim,
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


def reduce_deducer(op: str, axis: int, exact_tmp: bool = False, dtype: DataType | None = None,
                   allowed: tuple[DataType, ...] | None = None, row_tmp: bool = False):
    def deduce(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
        src = require_tile(op, args[0], "the operand")
        require_rank(op, src.shape, 2, "the operand")
        if allowed is not None:
            require_dtype_in(op, src.dtype, allowed, "the operand")
        if len(args) > 1:
            tmp = require_tile(op, args[1], "tmp")
            if exact_tmp and (not dims_equal(tmp.shape, src.shape) or tmp.dtype is not src.dtype):
                raise TypeError(f"{op}: tmp must have the operand's shape and dtype ({shape_text(src.shape)} "
                                f"{src.dtype.name}), got {shape_text(tmp.shape)} {tmp.dtype.name}")
            if row_tmp:
                check_row_tmp(op, src, tmp)
        return _reduced(src, axis, dtype or src.dtype)

    return deduce


def expand_deducer(op: str, axis: int):
    """`v` holds one value per row (axis 0: [M, 1]) or per column (axis 1: [1, N])."""

    def deduce(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
        src = require_tile(op, args[0], "the tile")
        vec = require_tile(op, args[1], "the vector")
        require_rank(op, src.shape, 2, "the tile")
        require_rank(op, vec.shape, 2, "the vector")
        other = 1 - axis
        if not same_dim(vec.shape[axis], src.shape[axis]) or static_int(vec.shape[other]) != 1:
            want = "[M, 1]" if axis == 0 else "[1, N]"
            raise TypeError(f"{op}: the vector must be {want} for a {shape_text(src.shape)} tile, got "
                            f"{shape_text(vec.shape)}")
        if vec.dtype is not src.dtype:
            raise TypeError(f"{op}: the vector is {vec.dtype.name} but the tile is {src.dtype.name}")
        return result_tile(src.shape, src.dtype, src)

    return deduce


def _op(name: str, deduce: Any, args: tuple[ArgSpec, ...], doc: str, **extra: Any) -> OpDef:
    """Both operands (the tile and its tmp / vector) are read from Vec."""
    return OpDef(f"tile.{name}", deduce, args=args, output_memory=_VEC, input_memory=vec_operands(0, 1), doc=doc,
                 **extra)


_SCRATCH_TMP = {1: LaneCategory.SCRATCH}

OPDEFS = [
    *[_op(n, reduce_deducer(f"tile.{n}", 1, allowed=ROW_MIN_DTYPES if n == "row_min" else None, row_tmp=True),
          (ArgSpec("tile"), ArgSpec("tmp")), f"{n[4:]} of each row -> [M, 1].",
          lane_invariant=_SCRATCH_TMP, traits=OpTraits(reduction_axes=(1,))) for n in ROW],
    _op("row_argmax", reduce_deducer("tile.row_argmax", 1, exact_tmp=True, dtype=DataType.INT32),
        (ArgSpec("tile"), ArgSpec("tmp")), "Index of the maximum of each row -> [M, 1] INT32.",
        traits=OpTraits(reduction_axes=(1,))),
    *[_op(n, reduce_deducer(f"tile.{n}", 0), (ArgSpec("tile"), ArgSpec("tmp", optional=True)),
          f"{n[4:]} of each column -> [1, N].", lane_invariant=_SCRATCH_TMP,
          traits=OpTraits(reduction_axes=(0,))) for n in COL],
    *[_op(f"row_expand_{n}", expand_deducer(f"tile.row_expand_{n}", 0), (ArgSpec("tile"), ArgSpec("row_vec")),
          f"x {n} v, v broadcast along each row.") for n in EXPAND],
    *[_op(f"col_expand_{n}", expand_deducer(f"tile.col_expand_{n}", 1), (ArgSpec("tile"), ArgSpec("col_vec")),
          f"x {n} v, v broadcast down each column.") for n in EXPAND],
]

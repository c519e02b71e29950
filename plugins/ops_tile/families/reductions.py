"""Row and column reductions: sum, max, min, prod, argmax, argmin, on tiles (`tile.row_sum`, `tile.col_sum`,
...) and tensors (`tensor.row_sum`, ...), and the top-level `pl.row_sum` & co. that dispatch on the operand.

Tiles (Vec in, Vec out; rank >= 2): `tile.row_*(x, tmp_tile)` reduces each row over its valid columns ->
[..., 1]; `tile.col_*(x[, tmp_tile])` each column over its valid rows -> [1, ...] (the first axis). A row
reduction's tmp is hardware scratch of the operand's dtype and rank and not smaller in any dim (Scratch:
the deducer never reads its shape); row_argmax / row_argmin need a tmp of exactly the operand's shape and
dtype (the deducer decides it; no lane declaration); col_sum's optional tmp has the operand's dtype;
col_max / col_min accept an optional tmp too (PyPTO's take none; a superset), col_prod none, col_argmax /
col_argmin require one (no shape rule: Scratch). `tile.row_min` takes INT16 / INT32 / FP16 / FP32 operands
in row_major / none_box layout. The result keeps the implicit layout of its shape (col_major for [M, 1],
M > 1). An empty valid region is not rejected: the split passes give an idle AIV lane an empty valid region
and re-deduce its calls (the reduction of an empty region is poison).

Tensors: `tensor.row_*(input)` reduces `axis` (default -1), `tensor.col_*(input)` `axis` (default -2),
both with `keep_dim` (default true; the kwargs are recorded only when written); the reduced axis becomes 1
or is dropped (a Scalar when no axis is left), the kept dims carry the operand's valid extents.
`tensor.row_min` takes INT16 / INT32 / FP16 / FP32 operands. Their tile form reduces the last axis (tile
row_*) or, of a 2-D operand, the first (tile col_*), with a scratch tile where the tile op needs one;
keep_dim=False reshapes the result; other axes have no tile form.

Arg-reductions return the INT32 index of the first extreme on ties (numpy and pto-isa TROWARGMAX scan
order). Reductions read only the valid region; low-precision floats accumulate in FP32, except the FP16
`tile.col_sum`, whose every partial sum is rounded to FP16 in the hardware's order: with a tmp tile a binary
tree (row[i] = row[2i] + row[2i+1] while more than one row is left, an odd last row added into row 0),
without one sequentially from row 0.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import MemorySpace
from pypto_core.ir.expr import Call, ConstInt, Expr
from pypto_core.ir.span import Span
from pypto_core.ir.types import ScalarType, TensorType, TensorView, TileType, Type, dims_equal
from pypto_core.ops.build import (
    dsl_entry,
    operand_kind,
    reject_tensor_tile_mix,
    require_dtype_in,
    require_tensor,
    require_tile,
    shape_text,
    static_int,
)
from pypto_core.ops.family import OpFamily
from pypto_core.ops.opdef import ArgSpec, KwargSpec, LaneCategory, OpDef, OpTraits
from pypto_core.ops.registry import create_op_call
from pypto_core.ops.tile_form import TileForm, TileLowering
from pypto_plugins.ops_tile.common import names
from pypto_plugins.ops_tile.common.dsl import Builder, dispatch_between, registered
from pypto_plugins.ops_tile.common.shapes import require_min_rank, tensor_valid
from pypto_plugins.ops_tile.common.tile_forms import reshaped, scratch, tile_type
from pypto_plugins.ops_tile.common.views import is_partial, require_row_major, valid_view, vec_op

family = OpFamily("reductions", semantics="pypto_plugins.ops_tile.semantics.reductions")

ROW_MIN_DTYPES = (DataType.INT16, DataType.INT32, DataType.FP16, DataType.FP32)  # row_min's operand dtypes
KINDS = ("sum", "max", "min", "prod", "argmax", "argmin")
_WHAT = {"sum": "Sum", "max": "Maximum", "min": "Minimum", "prod": "Product"}


# -- type rules ---------------------------------------------------------------------------------------------
def _reduced(src: TileType, axis: int, dtype: DataType) -> TileType:
    shape, valid = list(src.shape), list(src.valid_shape)
    shape[axis] = valid[axis] = ConstInt(1)
    view = valid_view(valid, shape, MemorySpace.Vec) if is_partial(src) else None
    return TileType(shape, dtype, None, view, None)


def check_row_tmp(op: str, src: TileType, tmp: TileType) -> None:
    """A row reduction's tmp tile has the operand's dtype and rank and is not smaller in any dim."""
    if tmp.dtype is not src.dtype:
        raise TypeError(f"{op}: tmp is {tmp.dtype.name} but the operand is {src.dtype.name}; the tmp tile must "
                        f"have the operand's dtype")
    if len(tmp.shape) != len(src.shape):
        raise TypeError(f"{op}: tmp is {len(tmp.shape)}-D but the operand is {len(src.shape)}-D")
    for t, s in zip(tmp.shape, src.shape):
        tv, sv = static_int(t), static_int(s)
        if tv is not None and sv is not None and tv < sv:
            raise TypeError(f"{op}: tmp {shape_text(tmp.shape)} is smaller than the operand {shape_text(src.shape)}")


def tile_reduce_deducer(op: str, axis: int, exact_tmp: bool = False, dtype: DataType | None = None,
                        allowed: tuple[DataType, ...] | None = None, row_tmp: bool = False,
                        same_dtype_tmp: bool = False, row_major: bool = False) -> Callable[..., Type]:
    """axis -1: row_* -> [..., 1]; axis 0: col_* -> [1, rest of the shape]."""

    def deduce(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
        src = require_tile(op, args[0], "the operand")
        require_min_rank(op, src.shape, 2, "the operand")
        if allowed is not None:
            require_dtype_in(op, src.dtype, allowed, "the operand")
        if row_major:
            require_row_major(op, src)
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


def tensor_reduce_deducer(op: str, default_axis: int, dtype: DataType | None = None,
                          allowed: tuple[DataType, ...] | None = None, min_rank: int = 1) -> Callable[..., Type]:
    """`axis` (default -1 for row_*, -2 for col_*), `keep_dim` (default true)."""

    def deduce(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
        src = require_tensor(op, args[0], "the operand")
        require_min_rank(op, src.shape, min_rank, "the operand")
        if allowed is not None:
            require_dtype_in(op, src.dtype, allowed, "the operand")
        rank = len(src.shape)
        axis = kwargs.get("axis", default_axis)
        if not -rank <= axis < rank:
            raise ValueError(f"{op}: axis {axis} is out of range for a {rank}-D operand {shape_text(src.shape)}")
        axis %= rank
        keep = kwargs.get("keep_dim", True)
        shape, valid = list(src.shape), list(tensor_valid(src))
        if keep:
            shape[axis] = valid[axis] = ConstInt(1)
        else:
            del shape[axis], valid[axis]
        result_dtype = dtype or src.dtype
        if not shape:
            return ScalarType(result_dtype)
        view = None if dims_equal(shape, valid) else TensorView(valid_shape=valid)
        return TensorType(shape, result_dtype, None, view)

    return deduce


# -- ops ----------------------------------------------------------------------------------------------------
_TILE_TMP = (ArgSpec("tile"), ArgSpec("tmp_tile"))
_SCRATCH_TMP = {1: LaneCategory.SCRATCH}
_ROWS, _COLS = OpTraits(reduction_axes=(1,)), OpTraits(reduction_axes=(0,))
_ARG_DOC = "INT32 index of the {m} of each {line} over its valid {cells}, the first on ties -> {shape}."
_TENSOR_KWARGS = (KwargSpec("axis", (int,), doc="the axis to reduce (row_*: -1, col_*: -2 when absent)"),
                  KwargSpec("keep_dim", (bool,), doc="keep the reduced axis as 1 (true when absent)"))


def _tile_op(name: str, deduce: Callable[..., Type], args: tuple[ArgSpec, ...], doc: str, **extra: Any) -> OpDef:
    """Every tile operand (the tile and its tmp) is read from Vec."""
    return vec_op(name, deduce, args, doc, vec=tuple(range(len(args))), **extra)


def tile_row_reduction(n: str, allowed: tuple[DataType, ...] | None = None, row_major: bool = False) -> OpDef:
    return _tile_op(n, tile_reduce_deducer(f"tile.{n}", -1, allowed=allowed, row_tmp=True, row_major=row_major),
                    _TILE_TMP, f"{_WHAT[n[4:]]} of each row over its valid columns -> [..., 1] (tmp_tile: scratch, at "
                               f"least the operand's shape).", lane_invariant=_SCRATCH_TMP, traits=_ROWS)


def tile_col_reduction(n: str, tmp: bool = True) -> OpDef:
    args = (ArgSpec("tile"), ArgSpec("tmp_tile", optional=True)) if tmp else (ArgSpec("tile"),)
    return _tile_op(n, tile_reduce_deducer(f"tile.{n}", 0, same_dtype_tmp=n == "col_sum"), args,
                    f"{_WHAT[n[4:]]} of each column over its valid rows -> [1, ...]." + (
                        " FP16: every partial sum rounded to FP16, a binary tree with tmp_tile, else sequential from "
                        "row 0." if n == "col_sum" else ""),
                    lane_invariant=_SCRATCH_TMP if tmp else {}, traits=_COLS)


def tensor_row_reduction(n: str, dtype: DataType | None = None, allowed: tuple[DataType, ...] | None = None,
                         doc: str | None = None) -> OpDef:
    return OpDef(f"tensor.{n}", tensor_reduce_deducer(f"tensor.{n}", -1, dtype, allowed), args=(ArgSpec("input"),),
                 kwargs=_TENSOR_KWARGS, traits=_ROWS,
                 doc=doc or f"{_WHAT[n[4:]]} along `axis` (default -1: each row) -> [..., 1] (keep_dim) or the "
                            f"axis dropped.")


def tensor_col_reduction(n: str, dtype: DataType | None = None, doc: str | None = None) -> OpDef:
    return OpDef(f"tensor.{n}", tensor_reduce_deducer(f"tensor.{n}", -2, dtype, min_rank=2),
                 args=(ArgSpec("input"),), kwargs=_TENSOR_KWARGS, traits=_COLS,
                 doc=doc or f"{_WHAT[n[4:]]} along `axis` (default -2: each column) -> [..., 1, N] (keep_dim) or "
                            f"the axis dropped.")


for _n in (*names.ROW, "row_prod"):
    family.op(tile_row_reduction(_n, ROW_MIN_DTYPES if _n == "row_min" else None, row_major=_n == "row_min"),
              dsl=f"tile.{_n}")
for _n, _m in (("row_argmax", "maximum"), ("row_argmin", "minimum")):
    _doc = _ARG_DOC.format(m=_m, line="row", cells="columns", shape="[..., 1]")
    family.op(_tile_op(_n, tile_reduce_deducer(f"tile.{_n}", -1, exact_tmp=True, dtype=DataType.INT32), _TILE_TMP,
                       "Column index (INT32) of the maximum of each row's valid columns, the first on ties -> [..., 1]."
                       if _n == "row_argmax" else _doc + " tmp_tile: exactly the operand's shape.", traits=_ROWS),
              dsl=f"tile.{_n}")
for _n in names.COL:
    family.op(tile_col_reduction(_n))
family.op(tile_col_reduction("col_prod", tmp=False), dsl="tile.col_prod")
for _n, _m in (("col_argmax", "maximum"), ("col_argmin", "minimum")):
    family.op(_tile_op(_n, tile_reduce_deducer(f"tile.{_n}", 0, dtype=DataType.INT32), _TILE_TMP,
                       _ARG_DOC.format(m=_m, line="column", cells="rows", shape="[1, ...]") + " tmp_tile: scratch.",
                       lane_invariant=_SCRATCH_TMP, traits=_COLS), dsl=f"tile.{_n}")

for _n in (*names.ROW, "row_prod"):
    family.op(tensor_row_reduction(_n, allowed=ROW_MIN_DTYPES if _n == "row_min" else None), dsl=f"tensor.{_n}")
family.op(tensor_row_reduction("row_argmax", DataType.INT32,
                               doc="INT32 index of the maximum along `axis` (default -1), the first on ties."),
          dsl="tensor.row_argmax")
family.op(tensor_row_reduction("row_argmin", DataType.INT32,
                               doc="INT32 index of the minimum along `axis` (default -1), the first on ties."),
          dsl="tensor.row_argmin")
for _n in (*names.COL, "col_prod"):
    family.op(tensor_col_reduction(_n), dsl=f"tensor.{_n}")
for _n, _m in (("col_argmax", "maximum"), ("col_argmin", "minimum")):
    family.op(tensor_col_reduction(_n, DataType.INT32,
                                   doc=f"INT32 index of the {_m} along `axis` (default -2), the first on ties."),
              dsl=f"tensor.{_n}")


# -- tile forms ---------------------------------------------------------------------------------------------
_COL_NEEDS_TMP = ("argmax", "argmin")


def _scratch_shape(t: Any, op: str) -> list[Expr]:
    """PyPTO's scratch of a row reduction: the operand's shape with the last dim raised to 128 unless it is a
    constant of at least 128; an arg-reduction's is exactly the operand's (docs/passes/convert_tensor_to_tile_ops.md,
    conversion table)."""
    if op.endswith(("argmax", "argmin")) or not op.startswith("tile.row_"):
        return list(t.shape)
    last = static_int(t.shape[-1])
    return [*t.shape[:-1], t.shape[-1] if last is not None and last >= 128 else ConstInt(128)]


def reduction_tile_form(kind: str, row: bool) -> TileForm:
    """The tile reduction of the reduced axis: the last (tile.row_*) or, of a 2-D tile, the first (tile.col_*),
    with a scratch tile of the operand's shape where the tile op needs one; keep_dim=False reshapes."""

    def lower_reduction(ctx: TileLowering, call: Call) -> Expr:
        src = ctx.tile(call.args[0])
        t = tile_type(src)
        rank = len(t.shape)
        axis = call.kwargs.get("axis")
        axis = (-1 if row else -2) if axis is None else axis
        axis %= rank
        if rank >= 2 and axis == rank - 1:
            op, tmp = f"tile.row_{kind}", True
        elif rank == 2 and axis == 0:
            op, tmp = f"tile.col_{kind}", kind in _COL_NEEDS_TMP
        else:
            raise ValueError(f"{call.op.name}: a reduction of axis {axis} of a {rank}-D tensor has no tile form; "
                             f"tile reductions reduce the last axis (or the first of a 2-D tile)")
        args = [src, scratch(ctx, _scratch_shape(t, op), t.dtype, "tmp_tile")] if tmp else [src]
        out = ctx.call(op, args)
        if call.kwargs.get("keep_dim", True) is False:
            if not isinstance(call.type, TensorType):
                raise ValueError(f"{call.op.name}: a reduction to a scalar has no tile form; keep the dim "
                                 f"(keep_dim=True) and read element [0, 0]")
            return reshaped(ctx, out, call.type.shape, "reduced")
        return out

    return TileForm(lower=lower_reduction)


for _kind in KINDS:
    family.implement("tile_form", f"tensor.row_{_kind}", reduction_tile_form(_kind, True))
    family.implement("tile_form", f"tensor.col_{_kind}", reduction_tile_form(_kind, False))


# -- DSL ----------------------------------------------------------------------------------------------------
def tile_col_builder(name: str) -> Builder:
    """`pl.tile.col_sum(tile[, tmp])`; an IR-builder call `T.col_max(tile, span)` passes the span second."""

    def build(tile: Expr, tmp: Expr | None = None, span: Span | None = None) -> Call:
        if isinstance(tmp, Span):
            tmp, span = None, tmp
        return create_op_call(f"tile.{name}", [tile] if tmp is None else [tile, tmp], span=span)

    build.__name__ = name
    return dsl_entry(build)


for _n in names.COL:
    family.dsl_function(f"tile.{_n}", tile_col_builder(_n))

_TMP_HINT = "pl.tile.create(<shape>, dtype=<dtype>, target_memory=pl.Mem.Vec)"


def reduction_with_tmp(name: str) -> Builder:
    """`pl.row_sum(x, tmp)`: tiles need hardware scratch (a row reduction requires it), tensors do not."""
    tile_fn, tensor_fn = registered(f"tile.{name}"), registered(f"tensor.{name}")

    def build(x: Expr, tmp: Expr | None = None, span: Span | None = None) -> Expr:
        reject_tensor_tile_mix(x, tmp)
        if operand_kind(x) == "Tile":
            if tmp is None and name.startswith("row_"):
                raise TypeError(f"a tile {name} needs a tmp tile of the operand's shape, e.g. {_TMP_HINT}")
            return tile_fn(x, tmp, span=span) if tmp is not None else tile_fn(x, span=span)
        if operand_kind(x) == "Tensor":
            if tmp is not None:
                raise TypeError(f"a tensor {name} takes no tmp")
            return tensor_fn(x, span=span)
        raise TypeError(f"expects a tensor or a tile, got {operand_kind(x)}")

    build.__name__ = name
    return dsl_entry(build)


def reduction_with_tmp_tile(name: str, tile_tmp: str) -> Builder:
    """`pl.row_prod(x, tmp_tile=None)`: tile_tmp 'required' or 'none' for a tile x."""
    tile_fn, tensor_fn = registered(f"tile.{name}"), registered(f"tensor.{name}")

    def build(input: Any, tmp_tile: Any = None, span: Span | None = None) -> Expr:
        reject_tensor_tile_mix(input, tmp_tile)
        kind = operand_kind(input)
        if kind == "Tile":
            if tmp_tile is None and tile_tmp == "required":
                raise TypeError(f"a tile {name} needs a tmp tile of the operand's shape, e.g. {_TMP_HINT}")
            if tmp_tile is not None and tile_tmp == "none":
                raise TypeError(f"a tile {name} takes no tmp tile")
            return tile_fn(input, tmp_tile, span=span) if tmp_tile is not None else tile_fn(input, span=span)
        if kind == "Tensor":
            if tmp_tile is not None:
                raise TypeError(f"a tensor {name} takes no tmp")
            return tensor_fn(input, span=span)
        raise TypeError(f"expects a tensor or a tile, got {kind}")

    build.__name__ = name
    return dsl_entry(build)


_COL_PROD = reduction_with_tmp_tile("col_prod", "none")


@dsl_entry
def col_prod(input: Any, span: Span | None = None) -> Expr:
    """`pl.col_prod(x)`: no tmp for a tile or a tensor."""
    return _COL_PROD(input, span=span)


for _n in (*names.ROW, *names.COL):
    family.dsl_function(_n, reduction_with_tmp(_n))
for _n in ("row_prod", "row_argmin", "col_argmax", "col_argmin"):
    family.dsl_function(_n, reduction_with_tmp_tile(_n, "required"))
family.dsl_function("col_prod", col_prod)
family.dsl_function("row_argmax", dispatch_between("row_argmax", registered("tile.row_argmax"),
                                                   registered("tensor.row_argmax")))


# Memory planning facts (docs/memory_planning.md): where a result's buffer lives, which operands it must not share.
family.set_traits("tile.row_sum", "tile.row_max", "tile.row_min", "tile.row_prod", "tile.row_argmax",
                  "tile.row_argmin", "tile.col_argmax", "tile.col_argmin", output_must_not_alias="all")

"""Pass rewrite rules of the gather_sort ops (issue 14): how ConvertTensorToTileOps lowers the tensor forms.

* gather_mask / sort32 / mrgsort_format1 / scatter_update: the tile op of the same name on the tiles.
* scatter_mask(input, dst): tile.scatter_mask(dst, input) (the tile form names the destination first).
* mrgsort_format2: the tile op needs its result-shaped scratch `tmp` (a tile.create of the result).
* gather_compare: tile.gather_compare with a UINT8 scratch of the input's shape.
* gather / scatter (2-D, torch semantics along `dim`): flat row-major indices built from the index tile and
  a tile.ci row / column ramp, then tile.gather / tile.scatter (flat-index ops).
* gather_row: tile.gather_row into the accumulator's tile; the source stays in GM.
* paged_gather: physical rows = block_table[i // block_size] * block_size + i % block_size in tile ops,
  then a row-mode tile.mgather from the pool and a window of `size` columns at col_off (zero rows when
  there are fewer indices than max_indices; a transpose when is_trans). `space` is left to
  InferTileMemorySpace, which places the result where its consumers need it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pypto_core.ir.dtypes import DataType
from pypto_core.ir.expr import Call, ConstFloat, ConstInt, Expr, MakeTuple
from pypto_core.ir.types import TensorType, TileType
from pypto_core.ops.build import static_int
from pypto_core.ops.tile_form import TileForm, TileLowering

D = DataType


def _dims(*values: Any) -> MakeTuple:
    return MakeTuple([v if isinstance(v, Expr) else ConstInt(int(v), D.INDEX) for v in values])


def _tile_type(e: Expr) -> TileType:
    assert isinstance(e.type, TileType), e.type
    return e.type


def _static_2d(op: str, t: Any) -> tuple[int, int]:
    dims = [static_int(d) for d in t.shape]
    if len(dims) != 2 or any(d is None for d in dims):
        raise ValueError(f"{op}: the tile form needs a static 2-D operand, got {t}")
    return dims[0], dims[1]  # type: ignore[return-value]


def _bound(ctx: TileLowering, op: str, args: Sequence[Expr], kwargs: dict[str, Any] | None, hint: str) -> Expr:
    return ctx.bind(ctx.call(op, list(args), kwargs or {}), hint)


def _int_scalar(value: int, dtype: DataType) -> ConstInt:
    return ConstInt(value, dtype)


def _ramp(ctx: TileLowering, n: int, dtype: DataType) -> Expr:
    """[1, n]: 0, 1, ..., n - 1."""
    return _bound(ctx, "tile.ci", [_int_scalar(0, dtype), _dims(1, n)], {"dtype": dtype, "descending": False}, "ramp")


def _flat_index(ctx: TileLowering, op: str, index: Expr, axis: int, cols: int) -> Expr:
    """Row-major flat indices into a [*, cols] table of `index` read along `axis` (torch.gather / scatter)."""
    t = _tile_type(index)
    rows, icols = _static_2d(op, t)
    dtype = t.dtype
    if axis == 1:  # flat = row * cols + index[row, j]
        if rows == 1:
            return index
        base = _bound(ctx, "tile.reshape", [_ramp(ctx, rows, dtype), _dims(rows, 1)], None, "row_ramp")
        base = _bound(ctx, "tile.muls", [base, _int_scalar(cols, dtype)], None, "row_base")
        return _bound(ctx, "tile.row_expand_add", [index, base], None, "flat_index")
    scaled = _bound(ctx, "tile.muls", [index, _int_scalar(cols, dtype)], None, "row_base")  # index[i, j] * cols + j
    if icols == 1:
        return scaled
    return _bound(ctx, "tile.col_expand_add", [scaled, _ramp(ctx, icols, dtype)], None, "flat_index")


def _gather(ctx: TileLowering, call: Call) -> Expr:
    src = ctx.tile(call.args[0])
    index = ctx.tile(call.args[1])
    rows, cols = _static_2d("tensor.gather", _tile_type(src))
    if _tile_type(index).dtype is not D.INT32:
        index = _bound(ctx, "tile.cast", [index], {"target_type": D.INT32}, "index32")
    axis = int(call.kwargs["dim"]) % 2
    flat = _flat_index(ctx, "tensor.gather", index, axis, cols)
    it = _tile_type(index)
    tmp = _bound(ctx, "tile.create", [MakeTuple(list(it.shape))], {"dtype": _tile_type(src).dtype}, "gather_tmp")
    return ctx.call("tile.gather", [src, flat, tmp])


def _scatter(ctx: TileLowering, call: Call) -> Expr:
    dst, index, src = (ctx.tile(a) for a in call.args)
    rows, cols = _static_2d("tensor.scatter", _tile_type(dst))
    if _tile_type(index).dtype is D.INT16 and rows * cols > 2**15:
        # tile.scatter takes 16-bit indexes for 16-bit data: the flat index must fit
        raise ValueError(f"tensor.scatter: a [{rows}, {cols}] input has more elements than an INT16 flat index "
                         f"addresses; use an INT32 index with 32-bit data")
    flat = _flat_index(ctx, "tensor.scatter", index, 1, cols)
    return ctx.call("tile.scatter", [dst, src, flat])


def _scatter_mask(ctx: TileLowering, call: Call) -> Expr:
    src, dst = ctx.tile(call.args[0]), ctx.tile(call.args[1])
    return ctx.call("tile.scatter_mask", [dst, src], dict(call.kwargs))


def _mrgsort_format2(ctx: TileLowering, call: Call) -> Expr:
    srcs = [ctx.tile(a) for a in call.args]
    t = call.type
    assert isinstance(t, TensorType)
    tmp = _bound(ctx, "tile.create", [MakeTuple(list(t.shape))], {"dtype": t.dtype}, "mrgsort_tmp")
    return ctx.call("tile.mrgsort_format2", [*srcs, tmp], dict(call.kwargs))


def _gather_compare(ctx: TileLowering, call: Call) -> Expr:
    src = ctx.tile(call.args[0])
    tmp = _bound(ctx, "tile.create", [MakeTuple(list(_tile_type(src).shape))], {"dtype": D.UINT8}, "compare_tmp")
    return ctx.call("tile.gather_compare", [src, call.args[1], tmp], dict(call.kwargs))


def _gather_row(ctx: TileLowering, call: Call) -> Expr:
    acc, src = call.args[0], call.args[1]
    if not ctx.is_gm(src):
        raise ValueError("tensor.gather_row: the source must be a tensor in global memory (a parameter)")
    acc_tile = acc if isinstance(acc.type, TileType) else ctx.tile(acc)
    return ctx.call("tile.gather_row", [acc_tile, src, *call.args[2:]], dict(call.kwargs))


def _row_vector(ctx: TileLowering, e: Expr, hint: str) -> Expr:
    """A 1-D or [1, n] INT32 tensor as a [1, n] tile."""
    tile = ctx.tile(e)
    t = _tile_type(tile)
    if len(t.shape) == 1:
        tile = _bound(ctx, "tile.reshape", [tile, _dims(1, t.shape[0])], None, hint)
    return tile


def _paged_gather(ctx: TileLowering, call: Call) -> Expr:
    op = "tensor.paged_gather"
    kw = call.kwargs
    bs, size, rows = int(kw["block_size"]), int(kw["size"]), int(kw["max_indices"])
    col_off = int(kw.get("col_off", 0))
    idx = _row_vector(ctx, call.args[1], "paged_indices")
    table = _row_vector(ctx, call.args[2], "block_table")
    n = _static_2d(op, _tile_type(idx))[1]
    block = _int_scalar(bs, D.INT32)
    page = _bound(ctx, "tile.divs", [idx, block], None, "page")
    start = _bound(ctx, "tile.muls", [page, block], None, "page_start")
    within = _bound(ctx, "tile.sub", [idx, start], None, "in_page")
    tmp = _bound(ctx, "tile.create", [_dims(1, n)], {"dtype": D.INT32}, "page_tmp")
    phys_page = _bound(ctx, "tile.gather", [table, page, tmp], None, "phys_page")
    phys = _bound(ctx, "tile.muls", [phys_page, block], None, "phys_start")
    phys = _bound(ctx, "tile.add", [phys, within], None, "phys_row")
    pool = call.args[0]
    if not ctx.is_gm(pool):
        raise ValueError(f"{op}: the paged pool must be a tensor in global memory (a parameter)")
    gathered = _bound(ctx, "tile.mgather", [pool, phys], {}, "pages")
    cols = _static_2d(op, _tile_type(gathered))[1]
    dtype = _tile_type(gathered).dtype
    result = gathered
    if n >= rows and (col_off, size) != (0, cols) or n > rows:
        result = _bound(ctx, "tile.slice", [gathered, _dims(min(n, rows), size), _dims(0, col_off)], None, "window")
    if n < rows:
        zero = ConstFloat(0.0, dtype) if dtype.is_float() else ConstInt(0, dtype)
        base = _bound(ctx, "tile.full", [_dims(rows, size), zero], {"dtype": dtype}, "paged_rows")
        if (col_off, size) != (0, cols):
            result = _bound(ctx, "tile.slice", [gathered, _dims(n, size), _dims(0, col_off)], None, "window")
        result = _bound(ctx, "tile.assemble", [base, result, _dims(0, 0)], None, "paged_rows")
    if kw.get("is_trans"):
        return ctx.call("tile.transpose", [result, ConstInt(0, D.INDEX), ConstInt(1, D.INDEX)])
    return result


def tile_forms() -> dict[str, TileForm]:
    return {
        "tensor.gather_mask": TileForm(op="tile.gather_mask"),
        "tensor.sort32": TileForm(op="tile.sort32"),
        "tensor.mrgsort_format1": TileForm(op="tile.mrgsort_format1"),
        "tensor.scatter_update": TileForm(op="tile.scatter_update"),
        "tensor.scatter_mask": TileForm(lower=_scatter_mask),
        "tensor.mrgsort_format2": TileForm(lower=_mrgsort_format2),
        "tensor.gather_compare": TileForm(lower=_gather_compare),
        "tensor.gather": TileForm(lower=_gather),
        "tensor.scatter": TileForm(lower=_scatter),
        "tensor.gather_row": TileForm(lower=_gather_row),
        "tensor.paged_gather": TileForm(lower=_paged_gather),
    }


def flatten_rules() -> dict[str, Any]:
    return {}

"""DSL spellings (OPS.md `py:` lines) of the broadcast / reduction ops PyPTO adds (issue 14), and the
spellings of the existing ones whose signature OPS.md widens:

* `pl.tile.row_expand_add(tile, row_vec, tmp=None)`; `pl.row_expand_add(lhs, rhs, tmp=None)`;
* `pl.tensor.row_sum(input)` & co. also take keyword-only `axis` / `keep_dim` (recorded only when
  written), so a printed `pl.tensor.row_sum(x, axis=0, keep_dim=False)` re-parses;
(The matmul spellings, tensor.matmul_acc's init_cond included, are the system_matmul family's.)

A tile row reduction needs its tmp tile (`pl.row_prod(x)` on a tile is an error saying so, like
`pl.row_sum`); a tensor reduction takes none.
"""

from __future__ import annotations

from typing import Any

from pypto_core.ir.expr import Call, Expr
from pypto_core.ir.span import Span
from pypto_core.ops.build import operand_kind, reject_tensor_tile_mix, to_bool, to_int
from pypto_core.ops.registry import create_op_call
from pypto_plugins.ops_tile.dsl.common import Builder, dsl_entry
from pypto_plugins.ops_tile.dsl.tensor import TENSOR as BASE_TENSOR
from pypto_plugins.ops_tile.ops import tensor_compute as tc
from pypto_plugins.ops_tile.ops.broadcast_reduce import EXPAND_NEW, expand_name

_EXPANDS = tuple(expand_name(d, n) for d in ("row", "col") for n in EXPAND_NEW)
_TILE_ROW = ("row_prod", "row_argmin")  # (tile, tmp_tile)
_TILE_COL_TMP = ("col_argmax", "col_argmin")  # (tile, tmp_tile)
_TENSOR_REDUCE = (*tc.ROW, *tc.COL, "row_argmax", "row_prod", "row_argmin", "col_prod", "col_argmax", "col_argmin")


def _expand(namespace: str, name: str) -> Builder:
    def build(target: Expr, vec: Expr, span: Span | None = None) -> Call:
        return create_op_call(f"{namespace}.{name}", [target, vec], span=span)

    build.__name__ = name
    return dsl_entry(build)


def _tile_reduce(name: str, tmp: bool) -> Builder:
    if tmp:
        def build(tile: Expr, tmp_tile: Expr, span: Span | None = None) -> Call:
            return create_op_call(f"tile.{name}", [tile, tmp_tile], span=span)
    else:
        def build(tile: Expr, span: Span | None = None) -> Call:  # type: ignore[misc]
            return create_op_call(f"tile.{name}", [tile], span=span)

    build.__name__ = name
    return dsl_entry(build)


def _tensor_reduce(name: str) -> Builder:
    def build(input: Expr, span: Span | None = None, *, axis: Any = None, keep_dim: Any = None) -> Call:
        kwargs: dict[str, Any] = {}
        if axis is not None:
            kwargs["axis"] = to_int(axis, "axis")
        if keep_dim is not None:
            kwargs["keep_dim"] = to_bool(keep_dim, "keep_dim")
        return create_op_call(f"tensor.{name}", [input], kwargs, span=span)

    build.__name__ = name
    return dsl_entry(build)


@dsl_entry
def tile_row_expand_add(tile: Expr, row_vec: Expr, tmp: Expr | None = None, span: Span | None = None) -> Call:
    args = [tile, row_vec] if tmp is None else [tile, row_vec, tmp]
    return create_op_call("tile.row_expand_add", args, span=span)


# -- top-level pl.X ----------------------------------------------------------------------------------
def _dispatch(name: str) -> Builder:
    tile_fn, tensor_fn = TILE[name], TENSOR[name]

    def build(lhs: Any, rhs: Any, span: Span | None = None) -> Expr:
        reject_tensor_tile_mix(lhs, rhs)
        kind = operand_kind(lhs)
        if kind == "Tile":
            return tile_fn(lhs, rhs, span=span)
        if kind == "Tensor":
            return tensor_fn(lhs, rhs, span=span)
        raise TypeError(f"expects a tensor or a tile as its first operand, got {kind}")

    build.__name__ = name
    return dsl_entry(build)


@dsl_entry
def row_expand_add(lhs: Any, rhs: Any, tmp: Any = None, span: Span | None = None) -> Expr:
    reject_tensor_tile_mix(lhs, rhs, tmp)
    kind = operand_kind(lhs)
    if kind == "Tile":
        return tile_row_expand_add(lhs, rhs, tmp, span=span)
    if kind == "Tensor":
        if tmp is not None:
            raise TypeError("a tensor row_expand_add takes no tmp")
        return BASE_TENSOR["row_expand_add"](lhs, rhs, span=span)
    raise TypeError(f"expects a tensor or a tile as its first operand, got {kind}")


def _reduction(name: str, tile_tmp: str) -> Builder:
    """`pl.row_prod(x, tmp_tile=None)`: tile_tmp 'required', 'optional' or 'none' for a tile x."""

    def build(input: Any, tmp_tile: Any = None, span: Span | None = None) -> Expr:
        reject_tensor_tile_mix(input, tmp_tile)
        kind = operand_kind(input)
        if kind == "Tile":
            if tmp_tile is None and tile_tmp == "required":
                raise TypeError(f"a tile {name} needs a tmp tile of the operand's shape, e.g. "
                                f"pl.tile.create(<shape>, dtype=<dtype>, target_memory=pl.Mem.Vec)")
            if tmp_tile is not None and tile_tmp == "none":
                raise TypeError(f"a tile {name} takes no tmp tile")
            return TILE[name](input, tmp_tile, span=span) if tmp_tile is not None else TILE[name](input, span=span)
        if kind == "Tensor":
            if tmp_tile is not None:
                raise TypeError(f"a tensor {name} takes no tmp")
            return TENSOR[name](input, span=span)
        raise TypeError(f"expects a tensor or a tile, got {kind}")

    build.__name__ = name
    return dsl_entry(build)


@dsl_entry
def col_prod(input: Any, span: Span | None = None) -> Expr:
    return _reduction("col_prod", "none")(input, span=span)


TILE: dict[str, Any] = {
    **{n: _expand("tile", n) for n in _EXPANDS},
    **{n: _tile_reduce(n, True) for n in (*_TILE_ROW, *_TILE_COL_TMP)},
    "col_prod": _tile_reduce("col_prod", False),
    "row_expand_add": tile_row_expand_add,
}
TENSOR: dict[str, Any] = {
    **{n: _expand("tensor", n) for n in _EXPANDS},
    **{n: _tensor_reduce(n) for n in _TENSOR_REDUCE},
}
SYSTEM: dict[str, Any] = {}
UNIFIED: dict[str, Any] = {  # top-level pl.X spellings; they override the base dispatchers of the same name
    **{n: _dispatch(n) for n in _EXPANDS},
    "row_expand_add": row_expand_add,
    **{n: _reduction(n, "required") for n in _TILE_ROW},
    **{n: _reduction(n, "required") for n in _TILE_COL_TMP},
    "col_prod": col_prod,
}

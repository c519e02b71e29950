"""DSL spellings (OPS.md `py:` lines) of the elementwise_extra ops (issue 14).

`pl.tile.fmod(a, b)` builds `tile.fmods` for a scalar b (like `pl.tile.add`); `pl.fmod` / `pl.fmods` /
`pl.part_*` / `pl.expands` dispatch on the first operand (tile or tensor); `pl.addc` / `subc` / `addsc` /
`subsc` / `prelu` / `lrelu` exist for tiles only.
"""

from __future__ import annotations

from typing import Any

from pypto_core.ir.expr import Call, Expr
from pypto_core.ir.span import Span
from pypto_core.ops.build import is_tensor, is_tile, operand_kind, reject_tensor_tile_mix
from pypto_core.ops.registry import create_op_call
from pypto_plugins.ops_tile.dsl.common import Builder, dsl_entry, scalar_for, tile_only
from pypto_plugins.ops_tile.ops.elementwise_extra import PART


def _fmod(family: str) -> Builder:
    def fmod(lhs: Expr, rhs: Any, span: Span | None = None) -> Call:
        if is_tile(rhs) or is_tensor(rhs):
            return create_op_call(f"{family}.fmod", [lhs, rhs], span=span)
        return create_op_call(f"{family}.fmods", [lhs, scalar_for(rhs, lhs, span)], span=span)

    return dsl_entry(fmod)


@dsl_entry
def addc(lhs: Expr, rhs: Expr, rhs2: Expr, span: Span | None = None) -> Call:
    return create_op_call("tile.addc", [lhs, rhs, rhs2], span=span)


@dsl_entry
def subc(lhs: Expr, rhs: Expr, rhs2: Expr, span: Span | None = None) -> Call:
    return create_op_call("tile.subc", [lhs, rhs, rhs2], span=span)


@dsl_entry
def addsc(lhs: Expr, rhs: Any, rhs2: Expr, span: Span | None = None) -> Call:
    return create_op_call("tile.addsc", [lhs, scalar_for(rhs, lhs, span), rhs2], span=span)


@dsl_entry
def subsc(lhs: Expr, rhs: Any, rhs2: Expr, span: Span | None = None) -> Call:
    return create_op_call("tile.subsc", [lhs, scalar_for(rhs, lhs, span), rhs2], span=span)


@dsl_entry
def prelu(tile: Expr, slope: Expr, tmp: Expr, span: Span | None = None) -> Call:
    return create_op_call("tile.prelu", [tile, slope, tmp], span=span)


@dsl_entry
def lrelu(tile: Expr, slope: Any, span: Span | None = None) -> Call:
    return create_op_call("tile.lrelu", [tile, scalar_for(slope, tile, span)], span=span)


@dsl_entry
def tile_fmods(lhs: Expr, rhs: Any, span: Span | None = None) -> Call:
    return create_op_call("tile.fmods", [lhs, scalar_for(rhs, lhs, span)], span=span)


@dsl_entry
def tensor_fmods(lhs: Expr, rhs: Any, span: Span | None = None) -> Call:
    return create_op_call("tensor.fmods", [lhs, scalar_for(rhs, lhs, span)], span=span)


def _part(family: str, name: str) -> Builder:
    def build(src0: Expr, src1: Expr, span: Span | None = None) -> Call:
        return create_op_call(f"{family}.{name}", [src0, src1], span=span)

    build.__name__ = name
    return dsl_entry(build)


def _expands(family: str) -> Builder:
    def expands(target: Expr, scalar: Any, span: Span | None = None) -> Call:
        return create_op_call(f"{family}.expands", [target, scalar_for(scalar, target, span)], span=span)

    return dsl_entry(expands)


TILE: dict[str, Any] = {
    "addc": addc, "subc": subc, "addsc": addsc, "subsc": subsc, "prelu": prelu, "lrelu": lrelu,
    "fmod": _fmod("tile"), "fmods": tile_fmods, "expands": _expands("tile"),
    **{n: _part("tile", n) for n in PART},
}
TENSOR: dict[str, Any] = {
    "fmod": _fmod("tensor"), "fmods": tensor_fmods, "expands": _expands("tensor"),
    **{n: _part("tensor", n) for n in PART},
}
SYSTEM: dict[str, Any] = {}


def _dispatch(name: str) -> Builder:
    """`pl.<name>` over this module's tile / tensor builders (unified.dispatch reads only the base tables)."""
    on_tile, on_tensor = TILE[name], TENSOR[name]

    def build(x: Any, *args: Any, span: Span | None = None, **kwargs: Any) -> Any:
        reject_tensor_tile_mix(x, *args)
        if is_tile(x):
            return on_tile(x, *args, span=span, **kwargs)
        if is_tensor(x):
            return on_tensor(x, *args, span=span, **kwargs)
        raise TypeError(f"expects a tensor or a tile as its first operand, got {operand_kind(x)}")

    build.__name__ = name
    return build


UNIFIED: dict[str, Any] = {  # top-level pl.X spellings; they override the base dispatchers of the same name
    **{n: _dispatch(n) for n in ("fmod", "fmods", "expands", *PART)},
    **{n: tile_only(n, TILE[n]) for n in ("addc", "subc", "addsc", "subsc", "prelu", "lrelu")},
}

"""DSL / builders of the tile compute ops: element-wise, cast, selects, reductions, broadcasts, the
matmul family, and the index-addressed ops (docs/reference/ops.md). `pl.tile.add(t, 1.0)` builds `tile.adds`
(docs/reference/ops.md). gemv's `acc_phase` is recorded only when it is not 'unspecified' (so it is not printed).
`pl.tile.maxs` / `mins` are aliases of PyPTO's `tile.maximums` / `minimums`; `high_precision` is recorded
only when True; cmp's `cmp_type` (PyPTO's name; an int 0..5 or 'eq' ... 'le') is always recorded."""

from __future__ import annotations

from typing import Any

from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import CastMode
from pypto_core.ir.expr import Call, Expr
from pypto_core.ir.span import Span
from pypto_core.ops.build import is_tile, to_bool, to_dtype, to_enum_int, to_expr, to_int, to_tuple
from pypto_core.ops.registry import create_op_call
from pypto_plugins.ops_tile.dsl.common import Builder, dsl_entry, dsl_name, scalar_for, set_if
from pypto_plugins.ops_tile.ops import tile_elementwise as ew
from pypto_plugins.ops_tile.ops import tile_reduce as red


def _binary(name: str) -> Builder:
    on_tiles, on_scalar = f"tile.{name}", f"tile.{name}s"

    def build(lhs: Expr, rhs: Any, span: Span | None = None) -> Call:
        if is_tile(rhs):
            return create_op_call(on_tiles, [lhs, rhs], span=span)
        return create_op_call(on_scalar, [lhs, scalar_for(rhs, lhs, span)], span=span)

    def build_with_tmp(lhs: Expr, rhs: Any, tmp: Expr | None = None, span: Span | None = None) -> Call:
        """rem / xor (OPS.md): PyPTO passes a scratch tile third."""
        extra = [] if tmp is None else [tmp]
        if is_tile(rhs):
            return create_op_call(on_tiles, [lhs, rhs, *extra], span=span)
        return create_op_call(on_scalar, [lhs, scalar_for(rhs, lhs, span), *extra], span=span)

    chosen = build_with_tmp if name in ew.WITH_TMP else build
    chosen.__name__ = name
    return dsl_entry(chosen)


def _scalar(name: str) -> Builder:
    def build(lhs: Expr, rhs: Any, span: Span | None = None) -> Call:
        return create_op_call(f"tile.{name}", [lhs, scalar_for(rhs, lhs, span)], span=span)

    def build_with_tmp(lhs: Expr, rhs: Any, tmp: Expr | None = None, span: Span | None = None) -> Call:
        extra = [] if tmp is None else [tmp]
        return create_op_call(f"tile.{name}", [lhs, scalar_for(rhs, lhs, span), *extra], span=span)

    chosen = build_with_tmp if name[:-1] in ew.WITH_TMP else build
    chosen.__name__ = name
    return dsl_entry(chosen)


def _unary(name: str) -> Builder:
    def build(tile: Expr, span: Span | None = None) -> Call:
        return create_op_call(f"tile.{name}", [tile], span=span)

    build.__name__ = name
    return dsl_entry(build)


def precision(high_precision: Any) -> dict[str, Any]:
    """`high_precision` recorded only when True (so the default is not printed)."""
    return {"high_precision": True} if to_bool(high_precision, "high_precision") else {}


def to_cmp_type(value: Any) -> int:
    """cmp_type as its int (0..5 = eq, ne, lt, gt, ge, le); the names are accepted too."""
    if isinstance(value, str):
        if value.lower() not in ew.CMP_MODES:
            raise ValueError(f"cmp_type must be one of 0..5 or {', '.join(map(repr, ew.CMP_MODES))}, got {value!r}")
        return ew.CMP_MODES.index(value.lower())
    return to_int(value, "cmp_type")


@dsl_entry
def recip(tile: Expr, high_precision: Any = False, span: Span | None = None) -> Call:
    return create_op_call("tile.recip", [tile], precision(high_precision), span=span)


@dsl_entry
def log(tile: Expr, high_precision: Any = False, span: Span | None = None) -> Call:
    return create_op_call("tile.log", [tile], precision(high_precision), span=span)


@dsl_entry
def div(lhs: Expr, rhs: Any, high_precision: Any = False, span: Span | None = None) -> Call:
    """A scalar rhs builds tile.divs, which has no high_precision (PyPTO's wrapper drops it)."""
    if is_tile(rhs):
        return create_op_call("tile.div", [lhs, rhs], precision(high_precision), span=span)
    return create_op_call("tile.divs", [lhs, scalar_for(rhs, lhs, span)], span=span)


@dsl_entry
def rsqrt(tile: Expr, tmp: Expr | None = None, span: Span | None = None) -> Call:
    return create_op_call("tile.rsqrt", [tile] if tmp is None else [tile, tmp], span=span)


@dsl_entry
def cast(tile: Expr, target_type: DataType, mode: Any = "round", span: Span | None = None) -> Call:
    kwargs = {"target_type": to_dtype(target_type, "target_type"), "mode": to_enum_int(mode, CastMode, "mode")}
    return create_op_call("tile.cast", [tile], kwargs, span=span)


@dsl_entry
def cmp(lhs: Expr, rhs: Any, cmp_type: Any = 0, span: Span | None = None) -> Call:
    """A scalar rhs builds tile.cmps."""
    kwargs = {"cmp_type": to_cmp_type(cmp_type)}
    if is_tile(rhs):
        return create_op_call("tile.cmp", [lhs, rhs], kwargs, span=span)
    return create_op_call("tile.cmps", [lhs, scalar_for(rhs, lhs, span)], kwargs, span=span)


@dsl_entry
def cmps(lhs: Expr, rhs: Any, cmp_type: Any = 0, span: Span | None = None) -> Call:
    kwargs = {"cmp_type": to_cmp_type(cmp_type)}
    return create_op_call("tile.cmps", [lhs, scalar_for(rhs, lhs, span)], kwargs, span=span)


@dsl_entry
def sel(mask: Expr, lhs: Expr, rhs: Expr, tmp: Expr, span: Span | None = None) -> Call:
    return create_op_call("tile.sel", [mask, lhs, rhs, tmp], span=span)


@dsl_entry
def sels(mask: Expr, src: Expr, tmp: Expr, scalar: Any, span: Span | None = None) -> Call:
    return create_op_call("tile.sels", [mask, src, tmp, scalar_for(scalar, src, span)], span=span)


def _row_reduce(name: str) -> Builder:
    def build(tile: Expr, tmp: Expr, span: Span | None = None) -> Call:
        return create_op_call(f"tile.{name}", [tile, tmp], span=span)

    build.__name__ = name
    return dsl_entry(build)


def _col_reduce(name: str) -> Builder:
    def build(tile: Expr, tmp: Expr | None = None, span: Span | None = None) -> Call:
        if isinstance(tmp, Span):  # T.col_max(tile, span) (docs/reference/ops.md)
            tmp, span = None, tmp
        return create_op_call(f"tile.{name}", [tile] if tmp is None else [tile, tmp], span=span)

    build.__name__ = name
    return dsl_entry(build)


def _expand(name: str) -> Builder:
    def build(tile: Expr, vec: Expr, span: Span | None = None) -> Call:
        return create_op_call(f"tile.{name}", [tile, vec], span=span)

    build.__name__ = name
    return dsl_entry(build)


@dsl_entry
def matmul(lhs: Expr, rhs: Expr, span: Span | None = None) -> Call:
    return create_op_call("tile.matmul", [lhs, rhs], span=span)


@dsl_entry
def matmul_acc(acc: Expr, lhs: Expr, rhs: Expr, init_cond: Any = None, span: Span | None = None) -> Call:
    args = [acc, lhs, rhs] if init_cond is None else [acc, lhs, rhs, to_expr(init_cond, span)]
    return create_op_call("tile.matmul_acc", args, span=span)


@dsl_entry
def matmul_bias(lhs: Expr, rhs: Expr, bias: Expr, span: Span | None = None) -> Call:
    return create_op_call("tile.matmul_bias", [lhs, rhs, bias], span=span)


def _acc_phase(acc_phase: Any) -> dict[str, Any]:
    kwargs: dict[str, Any] = {}
    set_if(kwargs, "acc_phase", acc_phase, "unspecified")
    return kwargs


@dsl_entry
def gemv(lhs: Expr, rhs: Expr, acc_phase: str = "unspecified", span: Span | None = None) -> Call:
    return create_op_call("tile.gemv", [lhs, rhs], _acc_phase(acc_phase), span=span)


@dsl_entry
def gemv_acc(acc: Expr, lhs: Expr, rhs: Expr, acc_phase: str = "unspecified", span: Span | None = None) -> Call:
    return create_op_call("tile.gemv_acc", [acc, lhs, rhs], _acc_phase(acc_phase), span=span)


@dsl_entry
def gemv_bias(lhs: Expr, rhs: Expr, bias: Expr, acc_phase: str = "unspecified", span: Span | None = None) -> Call:
    return create_op_call("tile.gemv_bias", [lhs, rhs, bias], _acc_phase(acc_phase), span=span)


@dsl_entry
def batch_matmul(lhs: Expr, rhs: Expr, span: Span | None = None) -> Call:
    return create_op_call("tile.batch_matmul", [lhs, rhs], span=span)


@dsl_entry
def batch_matmul_acc(acc: Expr, lhs: Expr, rhs: Expr, span: Span | None = None) -> Call:
    return create_op_call("tile.batch_matmul_acc", [acc, lhs, rhs], span=span)


@dsl_entry
def gather(src: Expr, indices: Expr, tmp: Expr, span: Span | None = None) -> Call:
    return create_op_call("tile.gather", [src, indices, tmp], span=span)


@dsl_entry
def gatherb(src: Expr, offsets: Expr, span: Span | None = None, *, output_dtype: DataType | None = None) -> Call:
    kwargs = {} if output_dtype is None else {"output_dtype": to_dtype(output_dtype, "output_dtype")}
    return create_op_call("tile.gatherb", [src, offsets], kwargs, span=span)


@dsl_entry
def scatter(dst: Expr, src: Expr, indices: Expr, span: Span | None = None) -> Call:
    return create_op_call("tile.scatter", [dst, src, indices], span=span)


@dsl_entry
def scatter_update(input: Expr, index: Expr, src: Expr, span: Span | None = None, *, dim: Any = -2) -> Call:
    return create_op_call("tile.scatter_update", [input, index, src], {"dim": to_int(dim, "dim")}, span=span)


@dsl_entry
def gather_compare(src: Expr, k: Any, tmp: Expr, span: Span | None = None, *, cmp_mode: Any, out_cols: Any) -> Call:
    kwargs = {"cmp_mode": to_int(cmp_mode, "cmp_mode"), "out_cols": to_int(out_cols, "out_cols")}
    return create_op_call("tile.gather_compare", [src, scalar_for(k, src, span), tmp], kwargs, span=span)


@dsl_entry
def gather_row(dst: Expr, src: Expr, dst_offset: Any, src_offset: Any, shapes: Any, transpose: Any = False,
               span: Span | None = None, *, valid_shape: Any = None) -> Call:
    """The 6th operand (valid_shape) is printed as a keyword (docs/dsl.md, the printed form)."""
    args = [dst, src, to_tuple(dst_offset, span), to_tuple(src_offset, span), to_tuple(shapes, span)]
    if valid_shape is not None:
        args.append(to_tuple(valid_shape, span))
    kwargs = {"transpose": True} if to_bool(transpose, "transpose") else {}
    return create_op_call("tile.gather_row", args, kwargs, span=span)


TILE: dict[str, Builder] = {
    **{dsl_name(n): _binary(n) for n in ew.BINARY},
    **{n: _scalar(n) for n in ew.SCALAR},
    "maxs": _scalar("maximums"), "mins": _scalar("minimums"),  # pypto's old spellings: aliases
    **{dsl_name(n): _unary(n) for n in ew.UNARY},
    "div": div, "log": log, "recip": recip, "rsqrt": rsqrt, "cast": cast, "cmp": cmp, "cmps": cmps, "sel": sel,
    "sels": sels,
    **{n: _row_reduce(n) for n in (*red.ROW, "row_argmax")},
    **{n: _col_reduce(n) for n in red.COL},
    **{f"{d}_expand_{n}": _expand(f"{d}_expand_{n}") for d in ("row", "col") for n in red.EXPAND},
    "matmul": matmul, "matmul_acc": matmul_acc, "matmul_bias": matmul_bias, "gemv": gemv, "gemv_acc": gemv_acc,
    "gemv_bias": gemv_bias, "batch_matmul": batch_matmul, "batch_matmul_acc": batch_matmul_acc,
    "gather": gather, "gatherb": gatherb, "scatter": scatter, "scatter_update": scatter_update,
    "gather_compare": gather_compare, "gather_row": gather_row,
}

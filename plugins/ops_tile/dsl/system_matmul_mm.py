"""DSL spellings of the matmuls with PyPTO's kwargs (OPS.md py lines) and of the MX matmuls.

`pl.matmul(a, b, out_dtype=None, a_trans=False, b_trans=False, c_matrix_nz=False)` on tiles builds
tile.matmul with the kwargs that differ from their defaults (so PyPTO's plain `tile.matmul(a, b)` stays
as it is); `c_matrix_nz` picks an Acc layout values do not see and is not recorded on a tile. `pl.matmul_acc
(acc, lhs, rhs, a_trans=False, b_trans=False, init_cond=None)` likewise (tile or tensor). `pl.tile.matmul` /
`pl.tile.matmul_acc` accept the same kwargs by name, so printed text re-parses (docs/dsl.md, the printed form).
"""

from __future__ import annotations

from typing import Any

from pypto_core.ir.expr import Call, ConstBool, Expr
from pypto_core.ir.span import Span
from pypto_core.ops.build import operand_kind, reject_tensor_tile_mix, to_bool, to_dtype, to_expr
from pypto_core.ops.registry import create_op_call
from pypto_plugins.ops_tile.dsl.common import dsl_entry
from pypto_plugins.ops_tile.dsl.tensor import TENSOR


def _trans(a_trans: Any, b_trans: Any) -> dict[str, Any]:
    """The transposition flags that are set (a False flag is the default: not recorded)."""
    return {k: True for k, v in (("a_trans", a_trans), ("b_trans", b_trans)) if to_bool(v, k)}


@dsl_entry
def tile_matmul(lhs: Expr, rhs: Expr, span: Span | None = None, *, out_dtype: Any = None, a_trans: Any = False,
                b_trans: Any = False) -> Call:
    kwargs: dict[str, Any] = {} if out_dtype is None else {"out_dtype": to_dtype(out_dtype, "out_dtype")}
    kwargs.update(_trans(a_trans, b_trans))
    return create_op_call("tile.matmul", [lhs, rhs], kwargs, span=span)


def _acc_args(acc: Expr, lhs: Expr, rhs: Expr, init_cond: Any, span: Span | None) -> list[Expr]:
    return [acc, lhs, rhs] if init_cond is None else [acc, lhs, rhs, to_expr(init_cond, span)]


@dsl_entry
def tile_matmul_acc(acc: Expr, lhs: Expr, rhs: Expr, init_cond: Any = None, span: Span | None = None, *,
                    a_trans: Any = False, b_trans: Any = False) -> Call:
    return create_op_call("tile.matmul_acc", _acc_args(acc, lhs, rhs, init_cond, span), _trans(a_trans, b_trans),
                          span=span)


@dsl_entry
def tensor_matmul_acc(acc: Expr, lhs: Expr, rhs: Expr, a_trans: Any = False, b_trans: Any = False,
                      init_cond: Any = None, span: Span | None = None) -> Call:
    """OPS.md: `pl.tensor.matmul_acc(acc, lhs, rhs, a_trans=False, b_trans=False, init_cond=None)`.

    Printed text puts the IR operand init_cond 4th (docs/dsl.md, the printed form): an expression there is init_cond."""
    if isinstance(a_trans, Expr) and not isinstance(a_trans, ConstBool) and init_cond is None:
        a_trans, init_cond = False, a_trans
    return create_op_call("tensor.matmul_acc", _acc_args(acc, lhs, rhs, init_cond, span), _trans(a_trans, b_trans),
                          span=span)


@dsl_entry
def matmul(lhs: Expr, rhs: Expr, out_dtype: Any = None, a_trans: Any = False, b_trans: Any = False,
           c_matrix_nz: Any = False, span: Span | None = None) -> Expr:
    reject_tensor_tile_mix(lhs, rhs)
    if operand_kind(lhs) == "Tile":
        to_bool(c_matrix_nz, "c_matrix_nz")  # an Acc layout choice: no value sees it
        return tile_matmul(lhs, rhs, span=span, out_dtype=out_dtype, a_trans=a_trans, b_trans=b_trans)
    return TENSOR["matmul"](lhs, rhs, out_dtype, a_trans, b_trans, c_matrix_nz, span=span)


@dsl_entry
def matmul_acc(acc: Expr, lhs: Expr, rhs: Expr, a_trans: Any = False, b_trans: Any = False, init_cond: Any = None,
               span: Span | None = None) -> Expr:
    reject_tensor_tile_mix(acc, lhs, rhs)
    if operand_kind(acc) == "Tile":
        return tile_matmul_acc(acc, lhs, rhs, init_cond, span=span, a_trans=a_trans, b_trans=b_trans)
    return tensor_matmul_acc(acc, lhs, rhs, a_trans, b_trans, init_cond, span=span)


@dsl_entry
def matmul_mx(lhs: Expr, lhs_scale: Expr, rhs: Expr, rhs_scale: Expr, span: Span | None = None) -> Call:
    return create_op_call("tile.matmul_mx", [lhs, lhs_scale, rhs, rhs_scale], span=span)


@dsl_entry
def matmul_mx_acc(acc: Expr, lhs: Expr, lhs_scale: Expr, rhs: Expr, rhs_scale: Expr,
                  span: Span | None = None) -> Call:
    return create_op_call("tile.matmul_mx_acc", [acc, lhs, lhs_scale, rhs, rhs_scale], span=span)


@dsl_entry
def matmul_mx_bias(lhs: Expr, lhs_scale: Expr, rhs: Expr, rhs_scale: Expr, bias: Expr,
                   span: Span | None = None) -> Call:
    return create_op_call("tile.matmul_mx_bias", [lhs, lhs_scale, rhs, rhs_scale, bias], span=span)


@dsl_entry
def tget_scale_addr(dst_scale: Expr, src: Expr, span: Span | None = None) -> Call:
    """OPS.md has only the IR builder `ir.op.tile.tget_scale_addr`; the DSL name lets printed text re-parse."""
    return create_op_call("tile.tget_scale_addr", [dst_scale, src], span=span)


MX = {"matmul_mx": matmul_mx, "matmul_mx_acc": matmul_mx_acc, "matmul_mx_bias": matmul_mx_bias}
TILE = {"matmul": tile_matmul, "matmul_acc": tile_matmul_acc, "tget_scale_addr": tget_scale_addr, **MX}
TENSOR_FORMS = {"matmul_acc": tensor_matmul_acc}
UNIFIED = {"matmul": matmul, "matmul_acc": matmul_acc, **MX}

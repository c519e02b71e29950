"""DSL / builders of the `pl.tensor.*` ops (docs/reference/ops.md). `pl.tensor.add(t, 1.0)` builds `tensor.adds`.

PyPTO's tensor set (OPS.md) has no maxs / mins / cmps / relu / rem(s) / sel(s): pypto's old spellings
stay as aliases building PyPTO's IR (`pl.tensor.maxs(t, s)` -> `tensor.maximum(t, s)`, `cmps` ->
`tensor.cmp`, `relu(t)` -> `tensor.maximum(t, 0)`, `rem(s)` -> `tensor.fmod(s)`: the same truncated
remainder). A select has no tensor form: `pl.tensor.sel` / `sels` say to load tiles and use the tile op.
"""

from __future__ import annotations

from typing import Any

from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import AtomicType, CastMode, PadValue, TensorLayout
from pypto_core.ir.expr import Call, Expr
from pypto_core.ir.span import Span
from pypto_core.ops.build import is_tensor, to_bool, to_dtype, to_enum_int, to_expr, to_float, to_tuple
from pypto_core.ops.registry import create_op_call
from pypto_plugins.ops_tile.dsl.common import (
    Builder,
    dsl_entry,
    dsl_name,
    fill_value,
    scalar_for,
    set_if,
)
from pypto_plugins.ops_tile.dsl.tile_compute import precision, to_cmp_type
from pypto_plugins.ops_tile.dsl.tile_views import slice_args
from pypto_plugins.ops_tile.ops import tensor_compute as tc
from pypto_plugins.ops_tile.ops import tensor_elementwise as ew


def _binary(name: str) -> Builder:
    on_tensors = f"tensor.{name}"
    # maximum / minimum take the scalar themselves (OPS.md); rem's tensor form is fmod.
    on_scalar = on_tensors if name in ew.SCALAR_RHS else "tensor.fmods" if name == "fmod" else f"tensor.{name}s"

    def build(lhs: Expr, rhs: Any, span: Span | None = None) -> Call:
        if is_tensor(rhs):
            return create_op_call(on_tensors, [lhs, rhs], span=span)
        return create_op_call(on_scalar, [lhs, scalar_for(rhs, lhs, span)], span=span)

    build.__name__ = name
    return dsl_entry(build)


def _scalar(name: str, op: str | None = None) -> Builder:
    def build(lhs: Expr, rhs: Any, span: Span | None = None) -> Call:
        return create_op_call(op or f"tensor.{name}", [lhs, scalar_for(rhs, lhs, span)], span=span)

    build.__name__ = name
    return dsl_entry(build)


def _unary(name: str) -> Builder:
    def build(tensor: Expr, span: Span | None = None) -> Call:
        return create_op_call(f"tensor.{name}", [tensor], span=span)

    build.__name__ = name
    return dsl_entry(build)


def _precise_unary(name: str) -> Builder:
    """log / recip / rsqrt `(input, high_precision=False)` (OPS.md)."""

    def build(input: Expr, high_precision: Any = False, span: Span | None = None) -> Call:
        return create_op_call(f"tensor.{name}", [input], precision(high_precision), span=span)

    build.__name__ = name
    return dsl_entry(build)


@dsl_entry
def div(lhs: Expr, rhs: Any, high_precision: Any = False, span: Span | None = None) -> Call:
    """A scalar rhs builds tensor.divs, which has no high_precision (PyPTO's wrapper drops it)."""
    if is_tensor(rhs):
        return create_op_call("tensor.div", [lhs, rhs], precision(high_precision), span=span)
    return create_op_call("tensor.divs", [lhs, scalar_for(rhs, lhs, span)], span=span)


@dsl_entry
def relu(tensor: Expr, span: Span | None = None) -> Call:
    """PyPTO has relu only as a tile op: a tensor's is tensor.maximum(x, 0)."""
    return create_op_call("tensor.maximum", [tensor, scalar_for(0, tensor, span)], span=span)


def _tile_only(name: str, why: str = "the mask of pl.tile.cmp is a packed tile predicate") -> Builder:
    def build(*args: Any, span: Span | None = None, **kwargs: Any) -> Call:
        raise TypeError(f"PyPTO has no tensor.{name}: load the tensors into tiles (pl.load) and use "
                        f"pl.tile.{name} on the tiles ({why})")

    build.__name__ = name
    return build


@dsl_entry
def create(shape: Any, dtype: DataType, layout: TensorLayout = TensorLayout.ND, manual_dep: Any = False,
           init_value: Any = None, span: Span | None = None) -> Call:
    kwargs: dict[str, Any] = {"dtype": to_dtype(dtype), "layout": layout}
    set_if(kwargs, "manual_dep", to_bool(manual_dep, "manual_dep"), False)
    if init_value is not None:
        kwargs["init_value"] = init_value if isinstance(init_value, int) else to_float(init_value, "init_value")
    return create_op_call("tensor.create", [to_tuple(shape, span)], kwargs, span=span)


@dsl_entry
def full(shape: Any, dtype: DataType, value: Any, span: Span | None = None) -> Call:
    dtype = to_dtype(dtype)
    return create_op_call("tensor.full", [to_tuple(shape, span), fill_value(value, dtype, span)], {"dtype": dtype},
                          span=span)


@dsl_entry
def cmp(lhs: Expr, rhs: Any, cmp_type: Any = 0, span: Span | None = None) -> Call:
    """tensor.cmp takes a tensor or a scalar rhs (OPS.md)."""
    rhs = rhs if is_tensor(rhs) else scalar_for(rhs, lhs, span)
    return create_op_call("tensor.cmp", [lhs, rhs], {"cmp_type": to_cmp_type(cmp_type)}, span=span)


@dsl_entry
def cast(tensor: Expr, target_type: DataType, mode: Any = "round", span: Span | None = None) -> Call:
    kwargs = {"target_type": to_dtype(target_type, "target_type"), "mode": to_enum_int(mode, CastMode, "mode")}
    return create_op_call("tensor.cast", [tensor], kwargs, span=span)


@dsl_entry
def slice(tensor: Expr, shape: Any, offset: Any, valid_shape: Any = None, drop_dims: Any = None,
          pad_value: PadValue | None = None, clamp: Any = False, span: Span | None = None) -> Call:
    kwargs: dict[str, Any] = {}
    set_if(kwargs, "pad_value", pad_value)
    set_if(kwargs, "clamp", to_bool(clamp, "clamp"), False)
    return create_op_call("tensor.slice", slice_args(tensor, shape, offset, valid_shape, drop_dims, span), kwargs,
                          span=span)


@dsl_entry
def reshape(tensor: Expr, shape: Any, span: Span | None = None) -> Call:
    return create_op_call("tensor.reshape", [tensor, to_tuple(shape, span)], span=span)


@dsl_entry
def transpose(tensor: Expr, axis1: Any, axis2: Any, span: Span | None = None) -> Call:
    return create_op_call("tensor.transpose", [tensor, to_expr(axis1, span), to_expr(axis2, span)], span=span)


@dsl_entry
def reinterpret_view(tensor: Expr, dtype: DataType, span: Span | None = None, *, shape: Any = None) -> Call:
    args = [tensor] if shape is None else [tensor, to_tuple(shape, span)]
    return create_op_call("tensor.reinterpret_view", args, {"dtype": to_dtype(dtype)}, span=span)


@dsl_entry
def dim(tensor: Expr, axis: Any, span: Span | None = None) -> Call:
    return create_op_call("tensor.dim", [tensor, to_expr(axis, span)], span=span)


@dsl_entry
def read(tensor: Expr, indices: Any, span: Span | None = None) -> Call:
    return create_op_call("tensor.read", [tensor, to_tuple(indices, span)], span=span)


@dsl_entry
def write(tensor: Expr, indices: Any, value: Any, span: Span | None = None) -> Call:
    return create_op_call("tensor.write", [tensor, to_tuple(indices, span), scalar_for(value, tensor, span)],
                          span=span)


@dsl_entry
def assemble(target: Expr, source: Expr, offset: Any, span: Span | None = None, *,
             atomic: Any = AtomicType.None_) -> Call:
    kwargs: dict[str, Any] = {}
    set_if(kwargs, "atomic", to_enum_int(atomic, AtomicType, "atomic"), 0)
    return create_op_call("tensor.assemble", [target, source, to_tuple(offset, span)], kwargs, span=span)


@dsl_entry
def expand_clone(src: Expr, target: Expr, span: Span | None = None) -> Call:
    return create_op_call("tensor.expand_clone", [src, target], span=span)


def _trans_kwargs(**flags: Any) -> dict[str, Any]:
    return {k: True for k, v in flags.items() if to_bool(v, k)}


@dsl_entry
def matmul(a: Expr, b: Expr, out_dtype: DataType | None = None, a_trans: Any = False, b_trans: Any = False,
           c_matrix_nz: Any = False, span: Span | None = None) -> Call:
    # Every flag is recorded, in PyPTO's order (docs/reference/ops.md: `pl.tensor.matmul(y, y, a_trans=False, ...)`).
    kwargs: dict[str, Any] = {} if out_dtype is None else {"out_dtype": to_dtype(out_dtype, "out_dtype")}
    for key, value in (("a_trans", a_trans), ("b_trans", b_trans), ("c_matrix_nz", c_matrix_nz)):
        kwargs[key] = to_bool(value, key)
    return create_op_call("tensor.matmul", [a, b], kwargs, span=span)


@dsl_entry
def matmul_acc(acc: Expr, a: Expr, b: Expr, a_trans: Any = False, b_trans: Any = False,
               span: Span | None = None) -> Call:
    return create_op_call("tensor.matmul_acc", [acc, a, b], _trans_kwargs(a_trans=a_trans, b_trans=b_trans),
                          span=span)


def _expand(name: str) -> Builder:
    def build(tensor: Expr, vec: Expr, span: Span | None = None) -> Call:
        return create_op_call(f"tensor.{name}", [tensor, vec], span=span)

    build.__name__ = name
    return dsl_entry(build)


_REM = "which take a tmp tile and give the divisor's sign; pl.fmod / pl.fmods, with the dividend's sign, take tensors"

TENSOR: dict[str, Builder] = {
    **{dsl_name(n): _binary(n) for n in ew.BINARY},
    **{n: _scalar(n) for n in ew.SCALAR},
    **{dsl_name(n): _unary(n) for n in ew.UNARY},
    **{n: _precise_unary(n) for n in ("log", "recip", "rsqrt")},
    # pypto's old spellings, building PyPTO's ops
    "maxs": _scalar("maxs", "tensor.maximum"), "mins": _scalar("mins", "tensor.minimum"),
    "maximums": _scalar("maximums", "tensor.maximum"), "minimums": _scalar("minimums", "tensor.minimum"),
    "cmps": cmp, "relu": relu, # rem / rems are tile ops (the remainder with the divisor's sign, with a tmp tile); pl.fmod is the tensor one.
    "rem": _tile_only("rem", _REM), "rems": _tile_only("rems", _REM),
    "sel": _tile_only("sel"), "sels": _tile_only("sels"),
    "div": div, "create": create, "full": full, "cast": cast, "cmp": cmp, "slice": slice, "reshape": reshape,
    "transpose": transpose,
    "reinterpret_view": reinterpret_view, "dim": dim, "read": read, "write": write, "assemble": assemble,
    "expand_clone": expand_clone,
    "matmul": matmul, "matmul_acc": matmul_acc,
    **{n: _unary(n) for n in (*tc.ROW, *tc.COL, "row_argmax")},
    **{f"{d}_expand_{n}": _expand(f"{d}_expand_{n}") for d in ("row", "col") for n in tc.EXPAND},
}

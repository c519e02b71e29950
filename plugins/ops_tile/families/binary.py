"""Element-wise binary ops: add, sub, mul, div, maximum, minimum, rem, fmod, pow and the bitwise and, or,
xor, shl, shr -- on two tiles or tensors (numpy broadcasting) or on one and a scalar (`tile.adds`, ...).

IR layouts (docs/reference/ops.md): `tile.add(lhs, rhs)`, `tile.adds(lhs, scalar)`; `tile.rem` / `tile.xor`
(and their scalar forms) take the scratch tile `tmp` PyPTO passes third (optional here, so two-operand calls
stay valid); `tile.div(lhs, rhs)` kwarg `high_precision`. `pl.tile.add(t, 1.0)` builds `tile.adds`; the
tile-scalar max / min are PyPTO's `tile.maximums` / `minimums` (`pl.tile.maxs` / `mins` are aliases).

Dtypes: a tile-scalar op keeps the tile's dtype (an FP16 tile + 1.0 is FP16) and narrows the scalar to it
first (INT32 7 * 1.5 is 7); a tensor-scalar op promotes (tensor dtype, scalar dtype) like a binary op
(`pl.add(x_fp16, 1.0)` is FP32, docs/plugins.md), except `tensor.subs` (the scalar does not promote) and the
bitwise ones, which keep the tensor's dtype. `div` takes two operands of one dtype in INT16 / INT32 / FP16
/ FP32; `tile.div` neither broadcasts nor promotes (identical shapes and valid shapes); high_precision is
for float operands. Integer division truncates toward zero and x / 0 is 0; `rem` gives the divisor's sign
(numpy / torch remainder), `fmod` the dividend's (C fmod), and an integer remainder by 0 is 0. A binary
tensor result is fresh; its valid region is kept when both operands have the same shape and provably the
same valid region.

PyPTO's tensor set: `tensor.maximum` / `minimum` take a tensor or a scalar right-hand side (there is no
tensor.maximums / minimums); rem(s) is a tile op only (`pl.rem` of tensors is an error naming pl.fmod).
`tensor.pow` is a pypto extension. `tensor.add` takes two tensors: a scalar operand is `tensor.adds` (the
DSL builds that for `pl.add(t, 1.0)`), so the printed `pl.tensor.adds` re-parses to the op it came from.

Memory: every tile operand is read from Vec and the result is Vec (VECTOR affinity through the Vec output
rule); the scratch `tmp` of rem / xor is lane-invariant Scratch (docs/passes/lower_auto_vector_split.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pypto_core.errors import UserError
from pypto_core.ir import scalar_ops
from pypto_core.ir.dtypes import DataType
from pypto_core.ir.expr import Call, Expr
from pypto_core.ir.span import Span
from pypto_core.ir.types import ScalarType, TensorType, TensorView, Type, dims_equal
from pypto_core.ops.build import (
    broadcast_shapes,
    dsl_entry,
    is_tensor,
    is_tile,
    operand_kind,
    promote_dtypes,
    reject_tensor_tile_mix,
    require_dtype_in,
    require_scalar,
    require_tensor,
    require_tile,
    same_dim,
    shape_text,
    static_int,
    to_expr,
)
from pypto_core.ops.family import OpFamily
from pypto_core.ops.opdef import ArgSpec, KwargSpec, LaneCategory, OpDef
from pypto_core.ops.registry import create_op_call
from pypto_core.ops.tile_form import TileForm, TileLowering
from pypto_plugins.ops_tile.common import names
from pypto_plugins.ops_tile.common.dsl import (
    Builder,
    dispatch_between,
    dsl_name,
    dsl_named,
    precision,
    scalar_for,
    unchecked,
)
from pypto_plugins.ops_tile.common.elementwise import (
    Deducer,
    integer_elements,
    require_high_precision,
    tile_binary_deducer,
)
from pypto_plugins.ops_tile.common.shapes import fresh
from pypto_plugins.ops_tile.common.tile_forms import as_dtype, promoting, same, tile_of
from pypto_plugins.ops_tile.common.views import result_tile, row_major, vec_op

family = OpFamily("binary", semantics="pypto_plugins.ops_tile.semantics.binary")

DIV_DTYPES = (DataType.INT16, DataType.INT32, DataType.FP16, DataType.FP32)
_KEEPS_TENSOR_DTYPE = ("subs",)  # tensor.subs: the scalar does not promote


# -- type rules ---------------------------------------------------------------------------------------------
def tile_scalar_deducer(op: str) -> Deducer:
    integers_only = names.is_bitwise(op)

    def deduce(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
        lhs = require_tile(op, args[0], "lhs")
        if integers_only:
            integer_elements(op, lhs, "lhs")
        require_scalar(op, args[1], "rhs")
        if len(args) > 2:
            require_tile(op, args[2], "tmp")
        return result_tile(lhs.shape, lhs.dtype, lhs)

    return deduce


def _same_dims(a: Sequence[Expr], b: Sequence[Expr]) -> bool:
    return len(a) == len(b) and all(same_dim(x, y) for x, y in zip(a, b))


def deduce_tile_div(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    """One dtype in DIV_DTYPES, identical physical and valid shapes (no broadcast)."""
    op = "tile.div"
    lhs, rhs = require_tile(op, args[0], "lhs"), require_tile(op, args[1], "rhs")
    require_dtype_in(op, lhs.dtype, DIV_DTYPES, "lhs")
    if rhs.dtype is not lhs.dtype:
        raise TypeError(f"{op}: rhs is {rhs.dtype.name} but lhs is {lhs.dtype.name}; both operands must have "
                        f"one dtype of {', '.join(d.name for d in DIV_DTYPES)}")
    if not _same_dims(lhs.shape, rhs.shape):
        raise TypeError(f"{op}: shapes {shape_text(lhs.shape)} and {shape_text(rhs.shape)} differ; tile.div does "
                        f"not broadcast")
    if not _same_dims(lhs.valid_shape, rhs.valid_shape):
        raise TypeError(f"{op}: valid shapes {shape_text(lhs.valid_shape)} and {shape_text(rhs.valid_shape)} "
                        f"differ; both operands must have the same valid region")
    if kwargs.get("high_precision"):
        require_high_precision(op, lhs.dtype)
    return result_tile(lhs.shape, lhs.dtype, lhs)


def _valid_of(t: TensorType) -> tuple:
    view = t.tensor_view
    return tuple(view.valid_shape) if view is not None and view.valid_shape else tuple(t.shape)


def _shared_valid(lhs: TensorType, rhs: TensorType) -> tuple | None:
    """The valid region both operands declare (structurally equal extents), when it is narrower than the
    shape: a binary tensor result keeps it."""
    if not dims_equal(lhs.shape, rhs.shape):
        return None
    valid = _valid_of(lhs)
    if not dims_equal(valid, _valid_of(rhs)) or dims_equal(valid, lhs.shape):
        return None
    return valid


def tensor_binary_deducer(op: str) -> Deducer:
    integers_only = names.is_bitwise(op)  # decided once per op rather than on every call
    allowed = DIV_DTYPES if op == "tensor.div" else None
    scalar_rhs = op.rpartition(".")[2] in names.TENSOR.SCALAR_RHS

    def deduce(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
        lhs = require_tensor(op, args[0], "lhs")
        if scalar_rhs and isinstance(args[1].type, ScalarType):  # maximum / minimum: as tensor-scalar
            return fresh(lhs, promote_dtypes(lhs.dtype, args[1].type.dtype, op))
        if not isinstance(args[1].type, TensorType):
            hint = "a tensor or a scalar" if scalar_rhs else f"a tensor; use {op}s for a scalar"
            raise TypeError(f"{op}: rhs must be {hint}, got {args[1].type}")
        rhs = args[1].type
        if allowed is not None and kwargs.get("high_precision"):  # high_precision only for floats
            if not (lhs.dtype.is_float() and rhs.dtype.is_float()):
                raise TypeError(f"{op}: high_precision=True needs float operands, got {lhs.dtype.name} and "
                                f"{rhs.dtype.name}")
        if integers_only:
            integer_elements(op, lhs, "lhs")
            integer_elements(op, rhs, "rhs")
        if allowed is not None:
            require_dtype_in(op, lhs.dtype, allowed, "lhs")
            require_dtype_in(op, rhs.dtype, allowed, "rhs")
        if (lhs is rhs or (lhs.dtype is rhs.dtype and dims_equal(lhs.shape, rhs.shape))) \
                and lhs.memref is None and lhs.tensor_view is None and rhs.tensor_view is None:
            return lhs  # the common `pl.add(x, y)` of one type: nothing to broadcast or promote
        shape = broadcast_shapes(lhs.shape, rhs.shape, op)
        dtype = promote_dtypes(lhs.dtype, rhs.dtype, op)
        valid = _shared_valid(lhs, rhs)
        return TensorType(shape, dtype, None, TensorView(valid_shape=valid)) if valid else TensorType(shape, dtype)

    return deduce


def tensor_scalar_deducer(op: str) -> Deducer:
    integers_only = names.is_bitwise(op)
    promotes = not integers_only and op.rpartition(".")[2] not in _KEEPS_TENSOR_DTYPE

    def deduce(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
        lhs = require_tensor(op, args[0], "lhs")
        if integers_only:
            integer_elements(op, lhs, "lhs")
        scalar = require_scalar(op, args[1], "rhs")
        return fresh(lhs, promote_dtypes(lhs.dtype, scalar.dtype, op) if promotes else lhs.dtype)

    return deduce


# -- ops ----------------------------------------------------------------------------------------------------
_TWO = (ArgSpec("lhs"), ArgSpec("rhs"))
_WITH_TMP = (*_TWO, ArgSpec("tmp", optional=True))
_SCRATCH_TMP = {2: LaneCategory.SCRATCH}
_HIGH_PRECISION = KwargSpec("high_precision", (bool,), False)
# What the ops with a scratch tile compute beyond their name (docs/reference/ops.md).
_WITH_TMP_NOTES = {"rem": "; the remainder takes the divisor's sign, as numpy / torch remainder (tile.fmod takes the "
                          "dividend's); x rem 0 is 0 for integers"}
_TENSOR_DOCS = {
    "maximum": "Element-wise maximum of a tensor and a tensor (broadcasting) or a scalar.",
    "minimum": "Element-wise minimum of a tensor and a tensor (broadcasting) or a scalar.",
    "div": "Element-wise lhs / rhs (integers truncate toward zero; x / 0 is 0 for integers).",
}

for _n in names.BINARY:
    if _n == "div":
        family.op(vec_op("div", deduce_tile_div, _TWO, "Element-wise lhs / rhs of two tiles of one shape and dtype "
                         "(integers truncate; x / 0 is 0).", vec=(0, 1), kwargs=(_HIGH_PRECISION,)))
    elif _n in names.WITH_TMP:
        family.op(vec_op(_n, tile_binary_deducer(f"tile.{_n}"), _WITH_TMP,
                         f"Element-wise {_n} of two tiles (numpy broadcasting{_WITH_TMP_NOTES.get(_n, '')}); tmp is the "
                         f"hardware scratch PyPTO passes.", vec=(0, 1, 2), lane_invariant=_SCRATCH_TMP))
    else:
        family.op(vec_op(_n, tile_binary_deducer(f"tile.{_n}"), _TWO,
                         f"Element-wise {_n} of two tiles (numpy broadcasting).", vec=(0, 1)))
for _n in names.SCALAR:
    if _n[:-1] in names.WITH_TMP:
        family.op(vec_op(_n, tile_scalar_deducer(f"tile.{_n}"), _WITH_TMP,
                         f"Element-wise {_n[:-1]} of a tile and a scalar{_WITH_TMP_NOTES.get(_n[:-1], '')}; tmp is the "
                         f"hardware scratch PyPTO passes.", vec=(0, 2), lane_invariant=_SCRATCH_TMP))
    else:
        family.op(vec_op(_n, tile_scalar_deducer(f"tile.{_n}"), _TWO,
                         f"Element-wise {_n[:-1]} of a tile and a scalar (the scalar narrowed to the tile's dtype "
                         f"first)."))
for _n in names.TENSOR.BINARY:
    family.op(OpDef(f"tensor.{_n}", tensor_binary_deducer(f"tensor.{_n}"), args=_TWO,
                    kwargs=(_HIGH_PRECISION,) if _n == "div" else (),
                    doc=_TENSOR_DOCS.get(_n, f"Element-wise {_n} of two tensors.")))
for _n in names.TENSOR.SCALAR:
    family.op(OpDef(f"tensor.{_n}", tensor_scalar_deducer(f"tensor.{_n}"), args=_TWO,
                    doc=f"Element-wise {_n[:-1]} of a tensor and a scalar."))
family.op(vec_op("fmod", tile_binary_deducer("tile.fmod"), _TWO,
                 "Element-wise C fmod(lhs, rhs): the remainder with the dividend's sign (integer x fmod 0 is 0).",
                 vec=(0, 1)))
family.op(vec_op("fmods", tile_scalar_deducer("tile.fmods"), _TWO, "Element-wise C fmod of a tile by a scalar."))
family.op(OpDef("tensor.fmod", tensor_binary_deducer("tensor.fmod"), args=_TWO,
                doc="Element-wise C fmod(lhs, rhs) of two tensors (broadcasting)."))
family.op(OpDef("tensor.fmods", tensor_scalar_deducer("tensor.fmods"), args=_TWO,
                doc="Element-wise C fmod of a tensor by a scalar."))


# -- tile forms ---------------------------------------------------------------------------------------------
def extremum_tile_form(op: str) -> TileForm:
    """tensor.maximum / minimum: two tensors -> tile.maximum; a scalar rhs -> tile.maximums (promoting)."""
    on_scalar = promoting(f"tile.{op}s")

    def lower_extremum(ctx: TileLowering, call: Call) -> Expr:
        if isinstance(call.args[1].type, ScalarType):
            return on_scalar.apply(ctx, call)
        return ctx.call(f"tile.{op}", [tile_of(ctx, a) for a in call.args])

    return TileForm(lower=lower_extremum)


def lower_tensor_div(ctx: TileLowering, call: Call) -> Expr:
    """tile.div neither promotes nor broadcasts: both tiles are cast to the result dtype; a [1, N] or [M, 1]
    divisor of a 2-D dividend is a column / row broadcast (tile.col_expand_div / row_expand_div)."""
    want = call.type.dtype if isinstance(call.type, TensorType) else None
    lhs, rhs = (as_dtype(ctx, ctx.tile(a), want) for a in call.args)
    op = "tile.div"
    ls, rs = lhs.type.shape, rhs.type.shape  # type: ignore[attr-defined]
    if len(ls) == len(rs) == 2 and not (static_int(ls[0]) == 1 and static_int(ls[1]) == 1):
        if static_int(rs[0]) == 1 and static_int(ls[0]) != 1:
            op = "tile.col_expand_div"
        elif static_int(rs[1]) == 1 and static_int(ls[1]) != 1:
            op = "tile.row_expand_div"
    return ctx.call(op, [lhs, rhs])


def _row_vector(t: Any) -> bool:
    return len(t.shape) == 2 and static_int(t.shape[1]) == 1


def row_broadcasting(op: str) -> TileForm:
    """tensor.add / sub / mul of two 2-D tiles of which exactly one is a row vector ([M, 1]): PyPTO's
    `tile.row_expand_<op>(wide, narrow)` (docs/passes/convert_tensor_to_tile_ops.md, conversion table).
    PyPTO puts the wide operand first whatever the order, which for `sub(v, r)` computes r - v: here that
    one is `tile.neg(tile.row_expand_sub(r, v))`, v - r. Where the row broadcast's type rule refuses the pair
    (rows that differ, a column-major wide operand) the broadcasting `tile.<op>` stays (PyPTO raises)."""

    def lower_row_broadcast(ctx: TileLowering, call: Call) -> Expr:
        lhs, rhs = (tile_of(ctx, a) for a in call.args)
        lt, rt = lhs.type, rhs.type
        if len(getattr(lt, "shape", ())) == len(getattr(rt, "shape", ())) == 2 \
                and _row_vector(lt) != _row_vector(rt):
            wide, narrow = (rhs, lhs) if _row_vector(lt) else (lhs, rhs)
            try:
                expanded = ctx.call(f"tile.row_expand_{op}", [wide, narrow])
            except UserError:
                return ctx.call(f"tile.{op}", [lhs, rhs])
            if op == "sub" and narrow is lhs:
                return ctx.call("tile.neg", [ctx.bind(expanded, "row_expand_sub")])
            return expanded
        return ctx.call(f"tile.{op}", [lhs, rhs])

    return TileForm(lower=lower_row_broadcast)


# A tensor-scalar op promotes but its tile op keeps the tile's dtype: the tile is cast first (promoting).
for _n in names.TENSOR.BINARY:
    if _n in names.TENSOR.SCALAR_RHS:
        family.implement("tile_form", f"tensor.{_n}", extremum_tile_form(_n))
    elif _n == "div":
        family.implement("tile_form", "tensor.div", TileForm(lower=lower_tensor_div))
    elif _n in ("add", "sub", "mul"):
        family.implement("tile_form", f"tensor.{_n}", row_broadcasting(_n))
    else:
        family.implement("tile_form", f"tensor.{_n}", same(f"tile.{_n}"))
for _n in names.TENSOR.SCALAR:
    family.implement("tile_form", f"tensor.{_n}", promoting(f"tile.{_n}"))
family.implement("tile_form", "tensor.fmod", same("tile.fmod"))
family.implement("tile_form", "tensor.fmods", promoting("tile.fmods"))


# -- DSL ----------------------------------------------------------------------------------------------------
def tile_binary_builder(name: str) -> Builder:
    """`pl.tile.<name>(lhs, rhs)`: `tile.<name>` for a tile rhs, `tile.<name>s` for a scalar (retyped to the
    tile's dtype); rem / xor take PyPTO's scratch tile third."""
    on_tiles, on_scalar = f"tile.{name}", f"tile.{name}s"

    def build(lhs: Expr, rhs: Any, span: Span | None = None) -> Call:
        if is_tile(rhs):
            return create_op_call(on_tiles, [lhs, rhs], span=span)
        return create_op_call(on_scalar, [lhs, scalar_for(rhs, lhs, span)], span=span)

    def build_with_tmp(lhs: Expr, rhs: Any, tmp: Expr | None = None, span: Span | None = None) -> Call:
        extra = [] if tmp is None else [tmp]
        if is_tile(rhs):
            return create_op_call(on_tiles, [lhs, rhs, *extra], span=span)
        return create_op_call(on_scalar, [lhs, scalar_for(rhs, lhs, span), *extra], span=span)

    chosen = build_with_tmp if name in names.WITH_TMP else build
    chosen.__name__ = name
    return dsl_entry(chosen)


def scalar_builder(name: str, op: str) -> Builder:
    """`pl.<ns>.<name>(lhs, scalar)` building `op` with the scalar retyped to the operand's dtype."""

    def build(lhs: Expr, rhs: Any, span: Span | None = None) -> Call:
        return create_op_call(op, [lhs, scalar_for(rhs, lhs, span)], span=span)

    def build_with_tmp(lhs: Expr, rhs: Any, tmp: Expr | None = None, span: Span | None = None) -> Call:
        extra = [] if tmp is None else [tmp]
        return create_op_call(op, [lhs, scalar_for(rhs, lhs, span), *extra], span=span)

    chosen = build_with_tmp if op.startswith("tile.") and op[5:-1] in names.WITH_TMP else build
    chosen.__name__ = name
    return dsl_entry(chosen)


@dsl_entry
def div(lhs: Expr, rhs: Any, high_precision: Any = False, span: Span | None = None) -> Call:
    """`pl.tile.div`: a scalar rhs builds tile.divs, which has no high_precision (PyPTO's wrapper drops it)."""
    if is_tile(rhs):
        return create_op_call("tile.div", [lhs, rhs], precision(high_precision), span=span)
    return create_op_call("tile.divs", [lhs, scalar_for(rhs, lhs, span)], span=span)


def tensor_binary_builder(name: str) -> Builder:
    """`pl.tensor.<name>(lhs, rhs)`: `tensor.<name>` for a tensor rhs, else the scalar form (maximum / minimum
    take the scalar themselves)."""
    on_tensors = f"tensor.{name}"
    on_scalar = on_tensors if name in names.TENSOR.SCALAR_RHS else f"tensor.{name}s"

    def build(lhs: Expr, rhs: Any, span: Span | None = None) -> Call:
        if is_tensor(rhs):
            return create_op_call(on_tensors, [lhs, rhs], span=span)
        return create_op_call(on_scalar, [lhs, scalar_for(rhs, lhs, span)], span=span)

    build.__name__ = name
    return dsl_entry(build)


@dsl_named("div")
def tensor_div(lhs: Expr, rhs: Any, high_precision: Any = False, span: Span | None = None) -> Call:
    """`pl.tensor.div`: a scalar rhs builds tensor.divs, which has no high_precision."""
    if is_tensor(rhs):
        return create_op_call("tensor.div", [lhs, rhs], precision(high_precision), span=span)
    return create_op_call("tensor.divs", [lhs, scalar_for(rhs, lhs, span)], span=span)


def _rem_on_tensors(name: str) -> Builder:
    def build(*args: Any, span: Span | None = None, **kwargs: Any) -> Call:
        raise TypeError(f"PyPTO has no tensor.{name}: load the tensors into tiles (pl.load) and use "
                        f"pl.tile.{name} on the tiles (which take a tmp tile and give the divisor's sign; "
                        f"pl.fmod / pl.fmods, with the dividend's sign, take tensors)")

    build.__name__ = name
    return build


def fmod_builder(namespace: str) -> Builder:
    """`pl.<ns>.fmod(lhs, rhs)`: `fmods` for a scalar rhs (like `pl.tile.add`)."""

    def fmod(lhs: Expr, rhs: Any, span: Span | None = None) -> Call:
        if is_tile(rhs) or is_tensor(rhs):
            return create_op_call(f"{namespace}.fmod", [lhs, rhs], span=span)
        return create_op_call(f"{namespace}.fmods", [lhs, scalar_for(rhs, lhs, span)], span=span)

    return dsl_entry(fmod)


@dsl_entry
def tile_fmods(lhs: Expr, rhs: Any, span: Span | None = None) -> Call:
    return create_op_call("tile.fmods", [lhs, scalar_for(rhs, lhs, span)], span=span)


@dsl_entry
def tensor_fmods(lhs: Expr, rhs: Any, span: Span | None = None) -> Call:
    return create_op_call("tensor.fmods", [lhs, scalar_for(rhs, lhs, span)], span=span)


_TILE: dict[str, Builder] = {dsl_name(n): tile_binary_builder(n) for n in names.BINARY if n != "div"}
_TILE.update({n: scalar_builder(n, f"tile.{n}") for n in names.SCALAR})
_TILE.update({"div": div, "maxs": scalar_builder("maximums", "tile.maximums"),
              "mins": scalar_builder("minimums", "tile.minimums"),  # pypto's old spellings: aliases
              "fmod": fmod_builder("tile"), "fmods": tile_fmods})
_TENSOR: dict[str, Builder] = {dsl_name(n): tensor_binary_builder(n) for n in names.TENSOR.BINARY if n != "div"}
_TENSOR.update({n: scalar_builder(n, f"tensor.{n}") for n in names.TENSOR.SCALAR})
_TENSOR.update({"div": tensor_div, "fmod": fmod_builder("tensor"), "fmods": tensor_fmods,
                # pypto's old spellings, building PyPTO's ops
                "maxs": scalar_builder("maxs", "tensor.maximum"), "mins": scalar_builder("mins", "tensor.minimum"),
                "maximums": scalar_builder("maximums", "tensor.maximum"),
                "minimums": scalar_builder("minimums", "tensor.minimum"),
                "rem": _rem_on_tensors("rem"), "rems": _rem_on_tensors("rems")})

# Two scalars build a scalar expression (docs/dsl.md, promotion rules).
SCALAR_FORMS = {"add": scalar_ops.add, "sub": scalar_ops.sub, "mul": scalar_ops.mul, "div": scalar_ops.truediv,
                "maximum": scalar_ops.max_, "minimum": scalar_ops.min_, "rem": scalar_ops.mod, "pow": scalar_ops.pow,
                "and_": scalar_ops.bit_and, "or_": scalar_ops.bit_or, "xor": scalar_ops.bit_xor,
                "shl": scalar_ops.bit_shift_left, "shr": scalar_ops.bit_shift_right}


def unified_binary(name: str) -> Builder:
    """`pl.add(a, b)`: tensors / tiles (tile.adds for a scalar rhs) / two scalars -> a scalar expression."""
    on_tiles, on_tensors = unchecked(_TILE[name]), unchecked(_TENSOR[name])
    on_scalars = SCALAR_FORMS[name]

    def build(lhs: Any, rhs: Any, tmp: Any = None, span: Span | None = None) -> Expr:
        kl, kr = operand_kind(lhs), operand_kind(rhs)
        if kl != kr:
            reject_tensor_tile_mix(lhs, rhs)
        if tmp is not None and (name not in names.WITH_TMP or kl != "Tile"):
            raise TypeError(f"pl.{name} takes a tmp tile only for tiles (pl.rem / pl.xor), got one with {kl} operands")
        if kl == "Tensor":
            return on_tensors(lhs, rhs, span=span)
        if kl == "Tile":
            return on_tiles(lhs, rhs, span=span) if tmp is None else on_tiles(lhs, rhs, tmp, span=span)
        if kl == "Scalar" and kr == "Scalar":
            return on_scalars(to_expr(lhs, span), to_expr(rhs, span), span)
        if kr in ("Tensor", "Tile"):
            raise TypeError(f"the {kr.lower()} must be the first operand (pl.{name}(x, scalar))")
        raise TypeError(f"unsupported operands ({kl}, {kr})")

    build.__name__ = name
    return dsl_entry(build)


_DIVIDE = unchecked(unified_binary("div"))


@dsl_named("div")
def unified_div(lhs: Any, rhs: Any, high_precision: Any = False, span: Span | None = None) -> Expr:
    """`pl.div(a, b, high_precision=False)`: the binary dispatch plus the tensor / tile kwarg."""
    if not high_precision:
        return _DIVIDE(lhs, rhs, span=span)
    reject_tensor_tile_mix(lhs, rhs)
    kind = operand_kind(lhs)
    if kind in ("Tensor", "Tile"):
        return (_TENSOR if kind == "Tensor" else _TILE)["div"](lhs, rhs, high_precision, span=span)
    raise TypeError(f"high_precision applies to a tensor or tile division, got {kind} operands")

for _name, _fn in _TILE.items():
    family.dsl_function(f"tile.{_name}", _fn)
for _name, _fn in _TENSOR.items():
    family.dsl_function(f"tensor.{_name}", _fn)
for _n in names.BINARY:
    if _n != "div":
        family.dsl_function(dsl_name(_n), unified_binary(dsl_name(_n)))
family.dsl_function("div", unified_div)
# The scalar forms (and pypto's old spellings) dispatch on the first operand; pl.rem(s) of tensors is an error.
for _name in (*names.TENSOR.SCALAR, "maxs", "mins", "maximums", "minimums", "rems", "fmod", "fmods"):
    family.dsl_function(_name, dispatch_between(_name, _TILE[_name], _TENSOR[_name]))


# The row-major tiles the backend's instruction needs (ResolveBackendOpLayouts, docs/plugins.md, op interfaces).
for _row_major_op in ("add", "sub", "mul", "rem", "fmod", "and", "or", "xor", "shl", "shr", "maximum", "minimum",
                      "adds", "subs", "muls", "divs", "fmods", "maximums", "div"):
    family.implement("row_major_layout", f"tile.{_row_major_op}", row_major())


# Memory planning facts (docs/memory_planning.md): where a result's buffer lives, which operands it must not share.
family.set_traits("tile.fmod", "tile.fmods", "tile.ands", "tile.ors", "tile.xors", output_must_not_alias="all")

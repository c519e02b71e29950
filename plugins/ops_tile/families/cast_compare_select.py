"""Element-wise dtype conversion, comparison and selection: tile.cast / tensor.cast, tile.cmp / tile.cmps /
tensor.cmp, tile.sel / tile.sels.

IR layouts (docs/reference/ops.md): `tile.cast(x)` kwargs `target_type`, `mode` (0..6 = none, rint, round,
floor, ceil, trunc, odd; always recorded); `tile.cmp(lhs, rhs)` / `tile.cmps(lhs, scalar)` / `tensor.cmp(lhs,
rhs)` kwarg `cmp_type` (0..5 = eq, ne, lt, le, gt, ge; always recorded, the names accepted by the DSL);
`tile.sel(mask, lhs, rhs, tmp)`, `tile.sels(mask, src, tmp, scalar)`. `pl.tile.cmp(t, 1.0)` builds tile.cmps.

A cast must change the dtype. Masks: tile.cmp / cmps yield a PACKED predicate, a UINT8 tile whose last dim
is roundup(ceil(N / 8), 32) bytes: bit i of a row (LSB first, as pto-isa) is element i; its valid region is
lhs's with the last extent ceil(v / 8), its layout lhs's; the bits of elements past lhs's valid columns and
the padding bytes are 0. sel / sels read the raw bytes of any mask tile (UINT8, INT16, a reinterpret_view, ...)
as those bits, row by row (leading dims merged into rows); sels takes a 2-D mask of an 8 / 16 / 32-bit int
carrier whose rows hold at least ceil(valid cols / 8) bytes and cover src's valid rows. `tensor.cmp` is not
a packed mask: its result holds 1 / 0 in the promoted dtype (no valid region carried), and its tile form
selects between ones and zeros with tile.sel. A select has no tensor form (`pl.tensor.sel` says to load
tiles).

Memory: every tile operand is read from Vec and the result is Vec. Lanes: the `tmp` of sel / sels is
Scratch; their masks stay undeclared on purpose (the deducer cannot see them: sel only checks that the mask
is a tile, sels that it covers src's valid rows), and an unclassified operand is lane data.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pypto_core.ir import scalar_ops
from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import CastMode
from pypto_core.ir.expr import Call, ConstInt, Expr, MakeTuple
from pypto_core.ir.span import Span
from pypto_core.ir.types import ScalarType, TensorType, TileType, TileView, Type, dims_equal
from pypto_core.ops.build import (
    broadcast_shapes,
    dsl_entry,
    is_tensor,
    is_tile,
    promote_dtypes,
    require_dtype_in,
    require_scalar,
    require_tensor,
    require_tile,
    shape_text,
    static_int,
    to_dtype,
    to_enum_int,
    to_int,
)
from pypto_core.ops.family import OpFamily
from pypto_core.ops.opdef import ArgSpec, KwargSpec, LaneCategory, OpDef
from pypto_core.ops.registry import create_op_call
from pypto_core.ops.tile_form import TileForm, TileLowering
from pypto_plugins.ops_tile.common.dsl import (
    Builder,
    dispatch_between,
    dsl_named,
    fill_value,
    registered,
    scalar_for,
)
from pypto_plugins.ops_tile.common.elementwise import CMP_MODES
from pypto_plugins.ops_tile.common.shapes import fresh
from pypto_plugins.ops_tile.common.tile_forms import same, scratch, tile_of
from pypto_plugins.ops_tile.common.views import result_tile, vec_op

family = OpFamily("cast_compare_select", semantics="pypto_plugins.ops_tile.semantics.cast_compare_select")

MASK_CARRIERS = (DataType.INT8, DataType.UINT8, DataType.INT16, DataType.UINT16, DataType.INT32, DataType.UINT32)
SELS_DTYPES = (*MASK_CARRIERS, DataType.FP16, DataType.FP32)


# -- type rules ---------------------------------------------------------------------------------------------
def require_dtype_change(op: str, src: DataType, target: DataType) -> None:
    """A cast's target_type must differ from the operand's dtype."""
    if target is src:
        raise TypeError(f"{op}: the operand is {src.name} already; target_type must be a dtype other than "
                        f"{src.name}")


def deduce_tile_cast(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    src = require_tile("tile.cast", args[0], "the operand")
    require_dtype_change("tile.cast", src.dtype, kwargs["target_type"])
    return result_tile(src.shape, kwargs["target_type"], src)


def deduce_tensor_cast(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    src = require_tensor("tensor.cast", args[0], "the operand")
    require_dtype_change("tensor.cast", src.dtype, kwargs["target_type"])
    return fresh(src, kwargs["target_type"])  # the operand's valid region carries over


def _ceil_div(n: Expr, k: int) -> Expr:
    v = static_int(n)
    if v is not None:
        return ConstInt(-(-v // k), n.type.dtype, n.span)
    return scalar_ops.floordiv(scalar_ops.add(n, k - 1), k)


def packed_width(n: Expr) -> Expr:
    """A packed row of N predicate bits takes roundup(ceil(N / 8), 32) bytes."""
    nbytes = _ceil_div(n, 8)
    v = static_int(nbytes)
    if v is not None:
        return ConstInt(-(-v // 32) * 32, nbytes.type.dtype, nbytes.span)
    return scalar_ops.mul(_ceil_div(nbytes, 32), 32)


def packed_mask(shape: Sequence[Expr], *operands: TileType) -> TileType:
    """The packed predicate of a compare of `shape`: UINT8, last dim in bytes; valid region and layout from the
    first operand of that shape (valid = its valid region with the last extent ceil(v / 8))."""
    mask_shape = [*shape[:-1], packed_width(shape[-1])]
    src = next((t for t in operands if dims_equal(t.shape, shape)), None)
    if src is None:
        return TileType(mask_shape, DataType.UINT8)
    valid = [*src.valid_shape[:-1], _ceil_div(src.valid_shape[-1], 8)]
    base = src.tile_view or TileView()
    view = base.with_fields(valid_shape=tuple(valid), stride=(), start_offset=None)
    return TileType(mask_shape, DataType.UINT8, None, view, None)


def _require_rank(op: str, t: TileType, what: str) -> None:
    if not t.shape:
        raise TypeError(f"{op}: {what} must have at least one dimension to pack a predicate row, got a 0-D tile")


def deduce_tile_cmp(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    lhs, rhs = require_tile("tile.cmp", args[0], "lhs"), require_tile("tile.cmp", args[1], "rhs")
    shape = broadcast_shapes(lhs.shape, rhs.shape, "tile.cmp")
    _require_rank("tile.cmp", lhs, "lhs")
    promote_dtypes(lhs.dtype, rhs.dtype, "tile.cmp")
    return packed_mask(shape, lhs, rhs)


def deduce_tile_cmps(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    lhs = require_tile("tile.cmps", args[0], "lhs")
    require_scalar("tile.cmps", args[1], "rhs")
    _require_rank("tile.cmps", lhs, "lhs")
    return packed_mask(lhs.shape, lhs)


def deduce_tensor_cmp(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    """1 / 0 in promote(lhs, rhs), not a packed mask; no valid region carried."""
    op = "tensor.cmp"
    lhs = require_tensor(op, args[0], "lhs")
    if isinstance(args[1].type, ScalarType):
        return TensorType(lhs.shape, promote_dtypes(lhs.dtype, args[1].type.dtype, op))
    rhs = require_tensor(op, args[1], "rhs")
    return TensorType(broadcast_shapes(lhs.shape, rhs.shape, op), promote_dtypes(lhs.dtype, rhs.dtype, op))


def deduce_sel(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    require_tile("tile.sel", args[0], "the mask")
    lhs, rhs = require_tile("tile.sel", args[1], "lhs"), require_tile("tile.sel", args[2], "rhs")
    require_tile("tile.sel", args[3], "tmp")
    shape = broadcast_shapes(lhs.shape, rhs.shape, "tile.sel")
    return result_tile(shape, promote_dtypes(lhs.dtype, rhs.dtype, "tile.sel"), lhs, rhs)


def deduce_sels(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    """A 2-D mask of an 8/16/32-bit int carrier whose rows hold >= ceil(valid cols / 8) bytes and cover src's
    valid rows (its bytes are read as packed bits, whatever the carrier dtype)."""
    op = "tile.sels"
    mask = require_tile(op, args[0], "the mask")
    src = require_tile(op, args[1], "src")
    require_tile(op, args[2], "tmp")
    require_scalar(op, args[3], "the scalar")
    if len(mask.shape) != 2 or len(src.shape) != 2:
        raise TypeError(f"{op}: the mask and src must be 2-D tiles, got {shape_text(mask.shape)} and "
                        f"{shape_text(src.shape)}")
    require_dtype_in(op, mask.dtype, MASK_CARRIERS, "the mask")
    require_dtype_in(op, src.dtype, SELS_DTYPES, "src")
    rows, need = static_int(mask.shape[0]), static_int(src.valid_shape[0])
    if rows is not None and need is not None and rows < need:
        raise TypeError(f"{op}: the mask has {rows} rows but src has {need} valid rows")
    cols, valid_cols = static_int(mask.shape[1]), static_int(src.valid_shape[1])
    if cols is not None and valid_cols is not None and cols * mask.dtype.get_byte() < -(-valid_cols // 8):
        raise TypeError(f"{op}: the mask rows hold {cols * mask.dtype.get_byte()} bytes but src has {valid_cols} "
                        f"valid columns, which need {-(-valid_cols // 8)} bytes of packed bits")
    return result_tile(src.shape, src.dtype, src)


# -- ops ----------------------------------------------------------------------------------------------------
_CAST_KWARGS = (KwargSpec("target_type", (DataType,), required=True),
                KwargSpec("mode", (int,), int(CastMode.round), choices=tuple(int(m) for m in CastMode), recorded=True))
CMP_TYPE = KwargSpec("cmp_type", (int,), 0, choices=tuple(range(len(CMP_MODES))), recorded=True)

family.op(vec_op("cast", deduce_tile_cast, (ArgSpec("tile"),), "Element-wise dtype conversion with a rounding mode.",
                 kwargs=_CAST_KWARGS))
family.op(OpDef("tensor.cast", deduce_tensor_cast, args=(ArgSpec("input"),), kwargs=_CAST_KWARGS,
                doc="Element-wise dtype conversion with a rounding mode."))
family.op(vec_op("cmp", deduce_tile_cmp, (ArgSpec("lhs"), ArgSpec("rhs")),
                 "Element-wise comparison (cmp_type 0..5 = eq, ne, lt, le, gt, ge) -> a packed UINT8 predicate, bit i "
                 "of a row (LSB first) = element i.", vec=(0, 1), kwargs=(CMP_TYPE,)))
family.op(vec_op("cmps", deduce_tile_cmps, (ArgSpec("lhs"), ArgSpec("rhs")),
                 "Comparison with a scalar (cmp_type 0..5 = eq, ne, lt, le, gt, ge) -> a packed UINT8 predicate.",
                 kwargs=(CMP_TYPE,)))
family.op(OpDef("tensor.cmp", deduce_tensor_cmp, args=(ArgSpec("lhs"), ArgSpec("rhs")), kwargs=(CMP_TYPE,),
                doc="Element-wise comparison with a tensor or a scalar (cmp_type 0..5 = eq, ne, lt, le, gt, ge) -> 1 "
                    "where it holds, else 0, in the promoted dtype."))
family.op(vec_op("sel", deduce_sel, (ArgSpec("mask"), ArgSpec("lhs"), ArgSpec("rhs"), ArgSpec("tmp")),
                 "Pick lhs where the packed mask bit is set, else rhs (the mask's bytes are read as bits, LSB first).",
                 vec=(0, 1, 2, 3), lane_invariant={3: LaneCategory.SCRATCH}), dsl="tile.sel")
family.op(vec_op("sels", deduce_sels, (ArgSpec("mask"), ArgSpec("src"), ArgSpec("tmp"), ArgSpec("scalar")),
                 "Pick src where the packed mask bit is set, else the scalar (any 8/16/32-bit mask carrier).",
                 vec=(0, 1, 2), lane_invariant={2: LaneCategory.SCRATCH}))


# -- tile forms ---------------------------------------------------------------------------------------------
def lower_tensor_cmp(ctx: TileLowering, call: Call) -> Expr:
    """The packed predicate (tile.cmp / tile.cmps) selecting between tile.full ones and zeros of the result's
    shape and dtype with tile.sel, whose scratch is a [1, 32] UINT8 tile (the size PyPTO's tile.sel asks for)."""
    lhs, rhs = call.args
    t = call.type
    assert isinstance(t, TensorType)
    on_tiles = not isinstance(rhs.type, ScalarType)  # an operand may be a tile already (tensor.full lowered)
    kwargs = {"cmp_type": call.kwargs.get("cmp_type", 0)}
    mask = ctx.bind(ctx.call("tile.cmp" if on_tiles else "tile.cmps",
                             [tile_of(ctx, lhs), tile_of(ctx, rhs) if on_tiles else rhs], kwargs), "cmp_mask")
    ones, zeros = (ctx.bind(ctx.call("tile.full", [MakeTuple(list(t.shape)), fill_value(v, t.dtype, None)],
                                     {"dtype": t.dtype}), hint) for v, hint in ((1, "cmp_true"), (0, "cmp_false")))
    tmp = scratch(ctx, [ConstInt(1), ConstInt(32)], DataType.UINT8, "sel_tmp")
    return ctx.call("tile.sel", [mask, ones, zeros, tmp])


family.implement("tile_form", "tensor.cmp", TileForm(lower=lower_tensor_cmp))


family.implement("tile_form", "tensor.cast", same("tile.cast"))


# -- what the tile-preparation passes ask (docs/plugins.md, op interfaces) ------------------------------------
def cast_hop(call: Call, operand: Expr, dtype: DataType) -> Call:
    """LegalizeTileCast's hop: the same conversion (rounding mode and all) of `operand` to `dtype`."""
    return create_op_call("tile.cast", [operand], {**call.kwargs, "target_type": dtype}, span=call.span)


family.implement("cast_hop", "tile.cast", cast_hop)
# pto.tcvt / tcmps / tsel / tsels read and write row-major tiles (docs/passes/resolve_backend_op_layouts.md).
family.implement("row_major_layout", "tile.cast", {"operands": (0,), "result": True})
family.implement("row_major_layout", "tile.cmps", {"operands": (0,), "result": True})
family.implement("row_major_layout", "tile.sel", {"operands": "all", "result": True})
family.implement("row_major_layout", "tile.sels", {"operands": "all", "result": True})


# -- DSL ----------------------------------------------------------------------------------------------------
def to_cmp_type(value: Any) -> int:
    """cmp_type as its int (0..5 = eq, ne, lt, le, gt, ge); the names are accepted too."""
    if isinstance(value, str):
        if value.lower() not in CMP_MODES:
            raise ValueError(f"cmp_type must be one of 0..5 or {', '.join(map(repr, CMP_MODES))}, got {value!r}")
        return CMP_MODES.index(value.lower())
    return to_int(value, "cmp_type")


def _cast_kwargs(target_type: DataType, mode: Any) -> dict[str, Any]:
    """target_type (a dtype or its name) and mode (a CastMode, its name or its int)."""
    return {"target_type": to_dtype(target_type, "target_type"), "mode": to_enum_int(mode, CastMode, "mode")}


@dsl_entry
def cast(tile: Expr, target_type: DataType, mode: Any = "round", span: Span | None = None) -> Call:
    return create_op_call("tile.cast", [tile], _cast_kwargs(target_type, mode), span=span)


@dsl_named("cast")
def tensor_cast(tensor: Expr, target_type: DataType, mode: Any = "round", span: Span | None = None) -> Call:
    return create_op_call("tensor.cast", [tensor], _cast_kwargs(target_type, mode), span=span)


@dsl_entry
def cmp(lhs: Expr, rhs: Any, cmp_type: Any = 0, span: Span | None = None) -> Call:
    """`pl.tile.cmp`: a scalar rhs builds tile.cmps."""
    kwargs = {"cmp_type": to_cmp_type(cmp_type)}
    if is_tile(rhs):
        return create_op_call("tile.cmp", [lhs, rhs], kwargs, span=span)
    return create_op_call("tile.cmps", [lhs, scalar_for(rhs, lhs, span)], kwargs, span=span)


@dsl_entry
def cmps(lhs: Expr, rhs: Any, cmp_type: Any = 0, span: Span | None = None) -> Call:
    kwargs = {"cmp_type": to_cmp_type(cmp_type)}
    return create_op_call("tile.cmps", [lhs, scalar_for(rhs, lhs, span)], kwargs, span=span)


@dsl_named("cmp")
def tensor_cmp(lhs: Expr, rhs: Any, cmp_type: Any = 0, span: Span | None = None) -> Call:
    """`pl.tensor.cmp` (and pypto's `pl.tensor.cmps`): a tensor or a scalar rhs."""
    rhs = rhs if is_tensor(rhs) else scalar_for(rhs, lhs, span)
    return create_op_call("tensor.cmp", [lhs, rhs], {"cmp_type": to_cmp_type(cmp_type)}, span=span)


@dsl_entry
def sels(mask: Expr, src: Expr, tmp: Expr, scalar: Any, span: Span | None = None) -> Call:
    return create_op_call("tile.sels", [mask, src, tmp, scalar_for(scalar, src, span)], span=span)


def _select_on_tensors(name: str) -> Builder:
    def build(*args: Any, span: Span | None = None, **kwargs: Any) -> Call:
        raise TypeError(f"PyPTO has no tensor.{name}: load the tensors into tiles (pl.load) and use "
                        f"pl.tile.{name} on the tiles (the mask of pl.tile.cmp is a packed tile predicate)")

    build.__name__ = name
    return build


_TILE: dict[str, Builder] = {"cast": cast, "cmp": cmp, "cmps": cmps, "sels": sels}  # tile.sel: derived
_TENSOR: dict[str, Builder] = {"cast": tensor_cast, "cmp": tensor_cmp, "cmps": tensor_cmp,
                               "sel": _select_on_tensors("sel"), "sels": _select_on_tensors("sels")}
for _name, _fn in _TILE.items():
    family.dsl_function(f"tile.{_name}", _fn)
for _name, _fn in _TENSOR.items():
    family.dsl_function(f"tensor.{_name}", _fn)
for _name in ("cast", "cmp", "cmps", "sel", "sels"):
    family.dsl_function(_name, dispatch_between(_name, _TILE.get(_name) or registered(f"tile.{_name}"),
                                                _TENSOR[_name]))


# Memory planning facts (docs/memory_planning.md): which operands a result's buffer must not share.

def cast_no_alias_operands(call: Any, backend: Any) -> tuple[int, ...]:
    """A widening cast writes more bytes per element than it reads: its result may not share the operand's
    buffer; a narrowing or same-width one may."""
    source, target = call.args[0].type.dtype, call.kwargs.get("target_type")
    return (0,) if isinstance(target, DataType) and target.get_bit() > source.get_bit() else ()


family.set_traits("tile.cast", output_must_not_alias=cast_no_alias_operands)
family.set_traits("tile.sel", output_must_not_alias=(0, 3))
family.set_traits("tile.sels", output_must_not_alias=(0,))

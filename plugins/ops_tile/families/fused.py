"""Element-wise tile ops that fuse two steps: addc / subc / addsc / subsc (two additions, pto-isa TADDC /
TSUBC / TADDSC / TSUBSC) and prelu / lrelu (a compare and a multiply-select). Tile ops only: the top-level
`pl.addc` & co. reject a tensor with a hint to load it.

* `tile.addc(a, b, c)` = a + b + c, `tile.subc(a, b, c)` = a - b + c; `tile.addsc(a, s, c)` = a + s + c,
  `tile.subsc(a, s, c)` = a - s + c: the tiles broadcast together, the result has the promoted dtype of all
  operands.
* `tile.prelu(x, slope, tmp)`: x where x > 0, else slope * x, with a slope tile of x's shape, dtype and valid
  region (2-D FP16 / FP32; tmp a 2-D Scratch tile); `tile.lrelu(x, s)` the same with a scalar slope. 0 and -0
  take the slope branch; NaN stays NaN.

Memory: every tile operand is read from Vec and the result is Vec.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pypto_core.ir.dtypes import DataType
from pypto_core.ir.expr import Call, Expr
from pypto_core.ir.span import Span
from pypto_core.ir.types import Type, dims_equal
from pypto_core.ops.build import (
    broadcast_shapes,
    dsl_entry,
    promote_dtypes,
    require_dtype_in,
    require_scalar,
    require_tile,
    shape_text,
)
from pypto_core.ops.family import OpFamily
from pypto_core.ops.opdef import ArgSpec, LaneCategory
from pypto_core.ops.registry import create_op_call
from pypto_plugins.ops_tile.common.dsl import registered, scalar_for, tile_only
from pypto_plugins.ops_tile.common.elementwise import Deducer
from pypto_plugins.ops_tile.common.views import result_tile, row_major, vec_op

family = OpFamily("fused", semantics="pypto_plugins.ops_tile.semantics.fused")

_PRELU_DTYPES = (DataType.FP16, DataType.FP32)


# -- type rules ---------------------------------------------------------------------------------------------
def ternary_deducer(op: str) -> Deducer:
    """addc / subc: three tiles, broadcast together, promoted dtype of all three."""

    def deduce(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
        a, b, c = (require_tile(op, x, w) for x, w in zip(args, ("lhs", "rhs", "rhs2")))
        shape = broadcast_shapes(broadcast_shapes(a.shape, b.shape, op), c.shape, op)
        dtype = promote_dtypes(promote_dtypes(a.dtype, b.dtype, op), c.dtype, op)
        return result_tile(shape, dtype, a, b, c)

    return deduce


def scalar_ternary_deducer(op: str) -> Deducer:
    """addsc / subsc: (tile, scalar, tile) -> the tiles broadcast, the promoted dtype of all three."""

    def deduce(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
        a = require_tile(op, args[0], "lhs")
        s = require_scalar(op, args[1], "rhs")
        c = require_tile(op, args[2], "rhs2")
        shape = broadcast_shapes(a.shape, c.shape, op)
        dtype = promote_dtypes(promote_dtypes(a.dtype, s.dtype, op), c.dtype, op)
        return result_tile(shape, dtype, a, c)

    return deduce


def deduce_prelu(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    """src 2-D FP16 / FP32; slope of src's dtype, shape and valid region; tmp 2-D."""
    op = "tile.prelu"
    src, slope, tmp = require_tile(op, args[0], "tile"), require_tile(op, args[1], "slope"), require_tile(
        op, args[2], "tmp")
    if len(src.shape) != 2 or len(tmp.shape) != 2:
        raise TypeError(f"{op}: the tile and tmp must be 2-D, got {shape_text(src.shape)} and {shape_text(tmp.shape)}")
    require_dtype_in(op, src.dtype, _PRELU_DTYPES, "the tile")
    if slope.dtype is not src.dtype:
        raise TypeError(f"{op}: slope is {slope.dtype.name} but the tile is {src.dtype.name}; they must match")
    if not dims_equal(slope.shape, src.shape) or not dims_equal(slope.valid_shape, src.valid_shape):
        raise TypeError(f"{op}: slope must have the tile's shape and valid shape ({shape_text(src.shape)}, valid "
                        f"{shape_text(src.valid_shape)}), got {shape_text(slope.shape)}, valid "
                        f"{shape_text(slope.valid_shape)}")
    return result_tile(src.shape, src.dtype, src)


def deduce_lrelu(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    src = require_tile("tile.lrelu", args[0], "tile")
    require_scalar("tile.lrelu", args[1], "slope")
    return result_tile(src.shape, src.dtype, src)


# -- ops ----------------------------------------------------------------------------------------------------
_THREE = (ArgSpec("lhs"), ArgSpec("rhs"), ArgSpec("rhs2"))

family.op(vec_op("addc", ternary_deducer("tile.addc"), _THREE, "Element-wise lhs + rhs + rhs2 (broadcasting).",
                 vec=(0, 1, 2)), dsl="tile.addc")
family.op(vec_op("subc", ternary_deducer("tile.subc"), _THREE, "Element-wise lhs - rhs + rhs2 (broadcasting).",
                 vec=(0, 1, 2)), dsl="tile.subc")
family.op(vec_op("addsc", scalar_ternary_deducer("tile.addsc"), _THREE, "Element-wise lhs + scalar + rhs2.",
                 vec=(0, 2)))
family.op(vec_op("subsc", scalar_ternary_deducer("tile.subsc"), _THREE, "Element-wise lhs - scalar + rhs2.",
                 vec=(0, 2)))
family.op(vec_op("prelu", deduce_prelu, (ArgSpec("tile"), ArgSpec("slope"), ArgSpec("tmp")),
                 "Element-wise x if x > 0 else slope * x, with a slope tile of x's shape.", vec=(0, 1, 2),
                 lane_invariant={2: LaneCategory.SCRATCH}), dsl="tile.prelu")
family.op(vec_op("lrelu", deduce_lrelu, (ArgSpec("tile"), ArgSpec("slope")),
                 "Element-wise x if x > 0 else slope * x, with a scalar slope."))


# -- DSL ----------------------------------------------------------------------------------------------------
@family.dsl("tile.addsc")
@dsl_entry
def addsc(lhs: Expr, rhs: Any, rhs2: Expr, span: Span | None = None) -> Call:
    return create_op_call("tile.addsc", [lhs, scalar_for(rhs, lhs, span), rhs2], span=span)


@family.dsl("tile.subsc")
@dsl_entry
def subsc(lhs: Expr, rhs: Any, rhs2: Expr, span: Span | None = None) -> Call:
    return create_op_call("tile.subsc", [lhs, scalar_for(rhs, lhs, span), rhs2], span=span)


@family.dsl("tile.lrelu")
@dsl_entry
def lrelu(tile: Expr, slope: Any, span: Span | None = None) -> Call:
    return create_op_call("tile.lrelu", [tile, scalar_for(slope, tile, span)], span=span)


for _name in ("addc", "subc", "addsc", "subsc", "prelu", "lrelu"):
    family.dsl_function(_name, tile_only(_name, registered(f"tile.{_name}")))


# The row-major tiles the backend's instruction needs (ResolveBackendOpLayouts, docs/plugins.md, op interfaces).
for _row_major_op in ("lrelu", "addsc", "subsc", "prelu"):
    family.implement("row_major_layout", f"tile.{_row_major_op}", row_major())


# Memory planning facts (docs/memory_planning.md): which operands a result's buffer must not share.

def prelu_no_alias_operands(call: Any, backend: Any) -> str | tuple[int, ...]:
    """tile.prelu may not share any operand's buffer; on a5 only the tile's and the slope's."""
    arch = backend.fact("pto_arch", None) if backend is not None else None
    return (0, 1) if arch == "a5" else "all"


family.set_traits("tile.prelu", output_must_not_alias=prelu_no_alias_operands)

"""OpDefs of the PyPTO element-wise ops added for issue 14 (OPS.md "Elementwise" and `expands`).

Tile ops (every tile operand Vec, result Vec):
* `tile.addc(a, b, c)` = a + b + c and `tile.subc(a, b, c)` = a - b + c (pto-isa TADDC / TSUBC);
  `tile.addsc(a, s, c)` = a + s + c and `tile.subsc(a, s, c)` = a - s + c (TADDSC / TSUBSC):
  broadcast of the tiles, promoted dtype of all operands.
* `tile.fmod(a, b)` / `tile.fmods(a, s)`: C fmod (the sign of the dividend); an integer x fmod 0 is 0.
* `tile.part_add/max/min/mul(src0, src1)`: the op where both sources are valid, the valid one's value
  where only one is (pto-isa TPART*); the result keeps src0's valid region (OPS.md).
* `tile.prelu(x, slope, tmp)`: x where x > 0, else slope * x (slope a tile of x's shape; tmp Scratch);
  `tile.lrelu(x, s)`: the same with a scalar slope.
* `tile.expands(target, s)`: a tile of target's shape filled with s (target's values are not read).

Tensor ops (no memory rule, OPS.md): `tensor.fmod` / `fmods`, `tensor.part_*` (valid not propagated),
`tensor.expands` (target's dtype).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pypto_core.ir.dtypes import DataType
from pypto_core.ir.expr import Expr
from pypto_core.ir.types import TensorType, Type, dims_equal
from pypto_core.ops.build import (
    broadcast_shapes,
    promote_dtypes,
    require_dtype_in,
    require_scalar,
    require_tensor,
    require_tile,
    shape_text,
)
from pypto_core.ops.opdef import ArgSpec, LaneCategory, OpDef
from pypto_plugins.ops_tile.ops import tensor_elementwise as tensor_ew
from pypto_plugins.ops_tile.ops.tile_elementwise import _op, binary_deducer, result_tile, scalar_deducer

PART = ("part_add", "part_max", "part_min", "part_mul")
_PRELU_DTYPES = (DataType.FP16, DataType.FP32)


def ternary_deducer(op: str):
    """addc / subc: three tiles, broadcast together, promoted dtype of all three."""

    def deduce(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
        a, b, c = (require_tile(op, x, w) for x, w in zip(args, ("lhs", "rhs", "rhs2")))
        shape = broadcast_shapes(broadcast_shapes(a.shape, b.shape, op), c.shape, op)
        dtype = promote_dtypes(promote_dtypes(a.dtype, b.dtype, op), c.dtype, op)
        return result_tile(shape, dtype, a, b, c)

    return deduce


def scalar_ternary_deducer(op: str):
    """addsc / subsc: (tile, scalar, tile); OPS.md "Tile[bcast(lhs,arg2); promote(lhs,scalar,arg2)]"."""

    def deduce(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
        a = require_tile(op, args[0], "lhs")
        s = require_scalar(op, args[1], "rhs")
        c = require_tile(op, args[2], "rhs2")
        shape = broadcast_shapes(a.shape, c.shape, op)
        dtype = promote_dtypes(promote_dtypes(a.dtype, s.dtype, op), c.dtype, op)
        return result_tile(shape, dtype, a, c)

    return deduce


def deduce_prelu(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    """OPS.md tile.prelu: src FP16/FP32 2D; slope same dtype, shape and valid; tmp 2D."""
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


def deduce_expands(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    target = require_tile("tile.expands", args[0], "target")
    s = require_scalar("tile.expands", args[1], "scalar")
    return result_tile(target.shape, promote_dtypes(target.dtype, s.dtype, "tile.expands"), target)


def deduce_tensor_part(op: str):
    def deduce(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
        a, b = require_tensor(op, args[0], "src0"), require_tensor(op, args[1], "src1")
        return TensorType(broadcast_shapes(a.shape, b.shape, op), promote_dtypes(a.dtype, b.dtype, op))

    return deduce


def deduce_tensor_expands(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    target = require_tensor("tensor.expands", args[0], "target")
    require_scalar("tensor.expands", args[1], "scalar")
    return TensorType(target.shape, target.dtype)  # OPS.md: "Tensor[target.shape; target.dtype]"


_THREE = (ArgSpec("lhs"), ArgSpec("rhs"), ArgSpec("rhs2"))
_TWO = (ArgSpec("lhs"), ArgSpec("rhs"))
_SRCS = (ArgSpec("src0"), ArgSpec("src1"))
_PART_DOC = "{0} of two tiles where both are valid; where only one is valid, that one's value (src0's valid region)."

OPDEFS: list[OpDef] = [
    _op("addc", ternary_deducer("tile.addc"), _THREE, "Element-wise lhs + rhs + rhs2 (broadcasting).",
        vec=(0, 1, 2)),
    _op("subc", ternary_deducer("tile.subc"), _THREE, "Element-wise lhs - rhs + rhs2 (broadcasting).",
        vec=(0, 1, 2)),
    _op("addsc", scalar_ternary_deducer("tile.addsc"), _THREE, "Element-wise lhs + scalar + rhs2.", vec=(0, 2)),
    _op("subsc", scalar_ternary_deducer("tile.subsc"), _THREE, "Element-wise lhs - scalar + rhs2.", vec=(0, 2)),
    _op("fmod", binary_deducer("tile.fmod"), _TWO,
        "Element-wise C fmod(lhs, rhs): the remainder with the dividend's sign (integer x fmod 0 is 0).", vec=(0, 1)),
    _op("fmods", scalar_deducer("tile.fmods"), _TWO, "Element-wise C fmod of a tile by a scalar."),
    *[_op(n, binary_deducer(f"tile.{n}"), _SRCS, _PART_DOC.format(n[5:].capitalize()), vec=(0, 1)) for n in PART],
    _op("prelu", deduce_prelu, (ArgSpec("tile"), ArgSpec("slope"), ArgSpec("tmp")),
        "Element-wise x if x > 0 else slope * x, with a slope tile of x's shape.", vec=(0, 1, 2),
        lane_invariant={2: LaneCategory.SCRATCH}),
    _op("lrelu", deduce_lrelu, (ArgSpec("tile"), ArgSpec("slope")),
        "Element-wise x if x > 0 else slope * x, with a scalar slope."),
    _op("expands", deduce_expands, (ArgSpec("target"), ArgSpec("scalar")),
        "A tile of target's shape and valid region filled with the scalar (target's values are not read)."),
    OpDef("tensor.fmod", tensor_ew.binary_deducer("tensor.fmod"), args=_TWO,
          doc="Element-wise C fmod(lhs, rhs) of two tensors (broadcasting)."),
    OpDef("tensor.fmods", tensor_ew.scalar_deducer("tensor.fmods"), args=_TWO,
          doc="Element-wise C fmod of a tensor by a scalar."),
    *[OpDef(f"tensor.{n}", deduce_tensor_part(f"tensor.{n}"), args=_SRCS,
            doc=_PART_DOC.format(n[5:].capitalize()).replace("tiles", "tensors")) for n in PART],
    OpDef("tensor.expands", deduce_tensor_expands, args=(ArgSpec("target"), ArgSpec("scalar")),
          doc="A tensor of target's shape and dtype filled with the scalar."),
]

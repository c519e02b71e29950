"""Type rules the element-wise families share.

A broadcasting binary tile op promotes its two dtypes (`promote(a, b)`: the same dtype stays; a float
beats an int; else the wider wins; on equal widths the signed int) and keeps the whole view (layout and
valid region) of the first operand whose shape is the result's. Bitwise ops (names.INTEGER_ONLY) need
integer (or BOOL) elements.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pypto_core.ir.dtypes import DataType
from pypto_core.ir.expr import Expr
from pypto_core.ir.types import TensorType, TileType, Type
from pypto_core.ops.build import broadcast_shapes, promote_dtypes, require_tile
from pypto_plugins.ops_tile.common.names import is_bitwise
from pypto_plugins.ops_tile.common.views import result_tile

Deducer = Callable[[Sequence[Expr], Mapping[str, Any]], Type]

FLOAT_16_32 = (DataType.FP16, DataType.FP32)  # log's operand; what high_precision applies to
CMP_MODES = ("eq", "ne", "lt", "le", "gt", "ge")  # cmp_type / cmp_mode 0..5, PyPTO's order


def integer_elements(op: str, t: TileType | TensorType, what: str) -> None:
    if is_bitwise(op) and not (t.dtype.is_int() or t.dtype.is_bool()):
        raise TypeError(f"{op}: {what} must hold integers, got {t.dtype.name}")


def require_high_precision(op: str, dtype: DataType) -> None:
    """high_precision=True is for FP16 / FP32 operands only."""
    if dtype not in FLOAT_16_32:
        raise TypeError(f"{op}: high_precision=True needs FP16 or FP32 operands, got {dtype.name}")


def tile_binary_deducer(op: str) -> Deducer:
    """Two tiles broadcast together (numpy rules), promoted dtype; an optional third operand is a tmp tile."""
    integers_only = is_bitwise(op)  # decided once per op rather than on every call

    def deduce(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
        lhs, rhs = require_tile(op, args[0], "lhs"), require_tile(op, args[1], "rhs")
        if integers_only:
            integer_elements(op, lhs, "lhs")
            integer_elements(op, rhs, "rhs")
        shape = broadcast_shapes(lhs.shape, rhs.shape, op)
        if len(args) > 2:
            require_tile(op, args[2], "tmp")
        return result_tile(shape, promote_dtypes(lhs.dtype, rhs.dtype, op), lhs, rhs)

    return deduce

"""Cube matmul: tile.matmul(lhs, rhs) and tile.matmul_acc(acc, lhs, rhs[, init_cond]).

Left [M, K] x Right [K, N] -> Acc [M, N] (API.md 3.2/3.3). The accumulator dtype is FP32 for float
inputs and INT32 for integer inputs. matmul_acc accumulates into `acc` (arg 0 ReadWrite) and
returns acc's type. Choices where API.md is silent: the operands must not be placed outside
Left / Right (an unplaced tile is accepted); lhs and rhs must share a dtype; the result's valid
region is [lhs valid rows, rhs valid cols]; init_cond (when given) is a BOOL scalar.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import MemorySpace
from pypto_core.ir.expr import Expr
from pypto_core.ir.types import TileType, Type, dims_equal
from pypto_core.ops.build import require_rank, require_scalar, require_tile, same_dim, shape_text
from pypto_core.ops.opdef import ArgSpec, Effect, OpDef, OutputMemory
from pypto_plugins.ops_tile.ops.views import is_partial, valid_view


def accumulator_dtype(op: str, lhs: DataType, rhs: DataType) -> DataType:
    if lhs is not rhs:
        raise TypeError(f"{op}: lhs is {lhs.name} but rhs is {rhs.name}; cast one of them")
    if lhs.is_float():
        return DataType.FP32
    if lhs.is_int():
        return DataType.INT32
    raise TypeError(f"{op}: cannot multiply {lhs.name} matrices")


def _placed(op: str, e: Expr, space: MemorySpace, what: str) -> TileType:
    t = require_tile(op, e, what)
    require_rank(op, t.shape, 2, what)
    if t.memory_space is not None and t.memory_space is not space:
        raise TypeError(f"{op}: {what} must be in {space.name}, got {t.memory_space.name}; move it first "
                        f"(pl.move(x, target_memory=pl.Mem.{space.name}))")
    return t


def product_type(op: str, lhs_e: Expr, rhs_e: Expr) -> TileType:
    lhs = _placed(op, lhs_e, MemorySpace.Left, "lhs")
    rhs = _placed(op, rhs_e, MemorySpace.Right, "rhs")
    if not same_dim(lhs.shape[1], rhs.shape[0]):
        raise TypeError(f"{op}: inner dims differ: lhs {shape_text(lhs.shape)} x rhs {shape_text(rhs.shape)}")
    shape = [lhs.shape[0], rhs.shape[1]]
    valid = [lhs.valid_shape[0], rhs.valid_shape[1]]
    view = valid_view(valid, shape, MemorySpace.Acc) if is_partial(lhs) or is_partial(rhs) else None
    return TileType(shape, accumulator_dtype(op, lhs.dtype, rhs.dtype), None, view, MemorySpace.Acc)


def deduce_matmul(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    return product_type("tile.matmul", args[0], args[1])


def deduce_matmul_acc(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tile.matmul_acc"
    acc = _placed(op, args[0], MemorySpace.Acc, "acc")
    product = product_type(op, args[1], args[2])
    if not dims_equal(acc.shape, product.shape) or acc.dtype is not product.dtype:
        raise TypeError(f"{op}: acc is {shape_text(acc.shape)} {acc.dtype.name} but lhs x rhs is "
                        f"{shape_text(product.shape)} {product.dtype.name}")
    if len(args) > 3 and not require_scalar(op, args[3], "init_cond").dtype.is_bool():
        raise TypeError(f"{op}: init_cond must be a BOOL scalar")
    return acc


OPDEFS = [
    OpDef("tile.matmul", deduce_matmul, args=(ArgSpec("lhs"), ArgSpec("rhs")),
          output_memory=OutputMemory(fixed=MemorySpace.Acc), doc="Left x Right -> Acc."),
    OpDef("tile.matmul_acc", deduce_matmul_acc,
          args=(ArgSpec("acc"), ArgSpec("lhs"), ArgSpec("rhs"), ArgSpec("init_cond", optional=True)),
          effects={0: Effect.READ_WRITE}, output_memory=OutputMemory(fixed=MemorySpace.Acc),
          doc="acc += Left x Right."),
]

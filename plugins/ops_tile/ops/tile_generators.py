"""Tiles built from nothing but their own attributes: tile.full / create / ci / random.

IR layouts (API.md 3.3):
* `tile.full(shape, value)` - kwarg `dtype`; printed `pl.tile.full(shape, dtype=.., value=..)`.
* `tile.create(shape)` - kwargs `dtype`, `target_memory` (+ `transpose`, `flat_layout` when given).
  Without `target_memory` the space is deferred to InferTileMemorySpace (printed `target_memory=None`).
* `tile.ci(start, shape)` - kwargs `dtype`, `descending`.
* `tile.random(k0, k1, c0, c1, c2, c3, shape[, valid_shape])` - kwargs `dtype`, `rounds`.

All are pure generators (seed 003, "纯生成算子"); ci/random are positional generators; full and
create describe a shape. Choices where API.md is silent: `create`'s `transpose` / `flat_layout`
are recorded for codegen and do not change the type; `ci` needs an integer dtype; `random`'s
keys/counters must be integer scalars.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import MemorySpace
from pypto_core.ir.expr import Expr
from pypto_core.ir.types import TileType, Type
from pypto_core.ops.build import require_scalar, tuple_elements
from pypto_core.ops.opdef import ArgSpec, CoreAffinity, KwargSpec, OpDef, OpTraits, OutputMemory
from pypto_plugins.ops_tile.ops.shapes import shape_operand
from pypto_plugins.ops_tile.ops.views import valid_view

_VEC = OutputMemory(fixed=MemorySpace.Vec)


def deduce_full(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    shape = shape_operand("tile.full", args[0])
    value = require_scalar("tile.full", args[1], "the fill value")
    dtype = kwargs["dtype"]
    if value.dtype.is_float() and not dtype.is_float():
        raise TypeError(f"tile.full: a float value cannot fill a {dtype.name} tile")
    return TileType(shape, dtype, None, None, MemorySpace.Vec)


def deduce_create(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    shape = shape_operand("tile.create", args[0])
    return TileType(shape, kwargs["dtype"], None, None, kwargs.get("target_memory"))  # absent: deferred


def deduce_ci(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    start = require_scalar("tile.ci", args[0], "start")
    shape = shape_operand("tile.ci", args[1])
    dtype = kwargs["dtype"]
    if not dtype.is_int():
        raise TypeError(f"tile.ci generates integers; dtype must be an integer type, got {dtype.name}")
    if not start.dtype.is_int():
        raise TypeError(f"tile.ci: start must be an integer, got {start.dtype.name}")
    return TileType(shape, dtype, None, None, MemorySpace.Vec)


def deduce_random(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    for i, name in enumerate(("k0", "k1", "c0", "c1", "c2", "c3")):
        s = require_scalar("tile.random", args[i], name)
        if not s.dtype.is_int():
            raise TypeError(f"tile.random: {name} must be an integer scalar, got {s.dtype.name}")
    shape = shape_operand("tile.random", args[6])
    valid = tuple_elements(args[7]) if len(args) > 7 else ()
    if valid and len(valid) != len(shape):
        raise TypeError(f"tile.random: valid_shape has {len(valid)} dims for a {len(shape)}-D shape")
    if kwargs.get("rounds", 10) <= 0:
        raise ValueError("tile.random: rounds must be positive")
    return TileType(shape, kwargs.get("dtype", DataType.UINT32), None, valid_view(valid, shape, MemorySpace.Vec),
                    MemorySpace.Vec)


OPDEFS = [
    OpDef(
        "tile.full", deduce_full,
        args=(ArgSpec("shape"), ArgSpec("value")),
        kwargs=(KwargSpec("dtype", (DataType,), required=True),),
        output_memory=_VEC,
        traits=OpTraits(pure_generator=True, shape_describing=True, shape_args=(0,)),
        doc="A tile filled with one value.",
    ),
    OpDef(
        "tile.create", deduce_create,
        args=(ArgSpec("shape"),),
        kwargs=(KwargSpec("dtype", (DataType,), required=True),
                KwargSpec("target_memory", (MemorySpace,), None, deferred=True),
                KwargSpec("transpose", (bool,), False), KwargSpec("flat_layout", (bool,), False)),
        affinity=CoreAffinity.SHARED,
        output_memory=OutputMemory(from_kwarg="target_memory"),
        traits=OpTraits(pure_generator=True, shape_describing=True, shape_args=(0,)),
        doc="Allocate an uninitialised tile.",
    ),
    OpDef(
        "tile.ci", deduce_ci,
        args=(ArgSpec("start"), ArgSpec("shape")),
        kwargs=(KwargSpec("dtype", (DataType,), required=True), KwargSpec("descending", (bool,), False)),
        output_memory=_VEC,
        traits=OpTraits(positional_generator=True, pure_generator=True, shape_args=(1,)),
        doc="An index sequence start, start+1, ... (or descending) laid out along the tile.",
    ),
    OpDef(
        "tile.random", deduce_random,
        args=(ArgSpec("k0"), ArgSpec("k1"), ArgSpec("c0"), ArgSpec("c1"), ArgSpec("c2"), ArgSpec("c3"),
              ArgSpec("shape"), ArgSpec("valid_shape", optional=True)),
        kwargs=(KwargSpec("dtype", (DataType,), DataType.UINT32), KwargSpec("rounds", (int,), 10)),
        output_memory=_VEC,
        traits=OpTraits(positional_generator=True, pure_generator=True, shape_args=(6, 7)),
        doc="Counter-based random numbers (Philox keys k0/k1, counters c0..c3).",
    ),
]

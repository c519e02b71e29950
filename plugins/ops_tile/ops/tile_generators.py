"""Tiles built from nothing but their own attributes: tile.full / create / ci / random.

IR layouts (docs/reference/ops.md):
* `tile.full(shape, value)` - kwarg `dtype`; printed `pl.tile.full(shape, dtype=.., value=..)`.
* `tile.create(shape)` - kwargs `dtype`, `target_memory` (+ `transpose`, `flat_layout` when given).
  Without `target_memory` the space is deferred to InferTileMemorySpace (printed `target_memory=None`).
* `tile.ci(start, shape)` - kwargs `dtype`, `descending`.
* `tile.random(k0, k1, c0, c1, c2, c3, shape[, valid_shape])` - kwargs `dtype`, `rounds`.

All are pure generators (docs/passes/lower_auto_vector_split.md, when a halved call is sound); ci/random are positional generators; full and
create describe a shape. OPS.md rules: `ci` takes INT16/INT32/UINT16/UINT32 (default INT32), a start of
that dtype and a one-row shape; `random` takes six INT32 scalars, INT32/UINT32 and 7 or 10 rounds;
`create` rejects LeftScale/RightScale, and `transpose` (2-D Mat) / `flat_layout` (Mat) are checked.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import MemorySpace, TileLayout
from pypto_core.ir.expr import ConstInt, Expr
from pypto_core.ir.types import TileType, TileView, Type, dims_equal
from pypto_core.ops.build import (
    require_dtype_in,
    require_rank,
    require_scalar,
    shape_text,
    static_int,
    tuple_elements,
)
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
    op = "tile.create"
    shape = shape_operand(op, args[0])
    space = kwargs.get("target_memory")  # absent: deferred
    if space in (MemorySpace.LeftScale, MemorySpace.RightScale):
        raise ValueError(f"{op}: target_memory {space.name} cannot be created; MX scales are moved there (tile.move)")
    view = None
    if kwargs.get("transpose"):
        if len(shape) != 2 or space is not MemorySpace.Mat:
            raise ValueError(f"{op}: transpose=True needs a 2-D tile in Mat, got {shape_text(shape)} in "
                             f"{getattr(space, 'name', 'an unplaced space')}")
        view = TileView(blayout=TileLayout.row_major, slayout=TileLayout.col_major)
    if kwargs.get("flat_layout") and space is not MemorySpace.Mat:
        raise ValueError(f"{op}: flat_layout=True is for Mat tiles only")
    return TileType(shape, kwargs["dtype"], None, view, space)


CI_DTYPES = (DataType.INT16, DataType.INT32, DataType.UINT16, DataType.UINT32)


def check_ci_start(op: str, start: Expr, dtype: DataType) -> None:
    """OPS.md ci: dtype in {INT16, INT32, UINT16, UINT32}; start a scalar of that dtype."""
    require_dtype_in(op, dtype, CI_DTYPES, "dtype")
    t = require_scalar(op, start, "start")
    if t.dtype is not dtype:
        raise TypeError(f"{op}: start must be a {dtype.name} scalar (the dtype), got {t.dtype.name}; write "
                        f"pl.const(v, pl.{dtype.name}) or a literal")


def check_ci_shape(op: str, shape: Sequence[Expr]) -> None:
    """OPS.md ci: a non-empty shape whose leading dims are static 1s and whose last dim is not 1."""
    if not shape:
        raise TypeError(f"{op}: the shape must have at least one dimension")
    if any(static_int(d) != 1 for d in shape[:-1]):
        raise ValueError(f"{op}: the leading dims of {shape_text(shape)} must be 1 (ci fills one row)")
    if static_int(shape[-1]) == 1:
        raise ValueError(f"{op}: the last dim of {shape_text(shape)} must not be 1")


def deduce_ci(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    dtype = kwargs.get("dtype", DataType.INT32)
    check_ci_start("tile.ci", args[0], dtype)
    shape = shape_operand("tile.ci", args[1])
    check_ci_shape("tile.ci", shape)
    return TileType(shape, dtype, None, None, MemorySpace.Vec)


def require_int32(op: str, e: Expr, what: str) -> None:
    """An INT32 scalar operand (OPS.md); an integer literal (an INDEX constant) stands for its INT32 value."""
    t = require_scalar(op, e, what)
    if t.dtype is not DataType.INT32 and not (isinstance(e, ConstInt) and t.dtype.is_int()):
        raise TypeError(f"{op}: {what} must be an INT32 scalar, got {t.dtype.name}")


RANDOM_ARGS = ("key0", "key1", "counter0", "counter1", "counter2", "counter3")


def check_random(op: str, args: Sequence[Expr], kwargs: Mapping[str, Any]) -> DataType:
    """OPS.md random: six INT32 scalars, dtype INT32 / UINT32, rounds 7 or 10; returns the dtype."""
    for i, name in enumerate(RANDOM_ARGS):
        require_int32(op, args[i], name)
    dtype = kwargs.get("dtype", DataType.UINT32)
    require_dtype_in(op, dtype, (DataType.INT32, DataType.UINT32), "dtype")
    if kwargs.get("rounds", 10) not in (7, 10):
        raise ValueError(f"{op}: rounds must be 7 or 10, got {kwargs.get('rounds')}")
    return dtype


def deduce_random(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    dtype = check_random("tile.random", args, kwargs)
    shape = shape_operand("tile.random", args[6])
    require_rank("tile.random", shape, 2, "shape")
    valid = tuple_elements(args[7]) if len(args) > 7 else ()
    if valid and len(valid) != len(shape):
        raise TypeError(f"tile.random: valid_shape has {len(valid)} dims for a {len(shape)}-D shape")
    if valid and dims_equal(valid, shape):
        valid = ()
    return TileType(shape, dtype, None, valid_view(valid, shape, MemorySpace.Vec), MemorySpace.Vec)


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
                KwargSpec("transpose", (bool,), None), KwargSpec("flat_layout", (bool,), None)),
        affinity=CoreAffinity.SHARED,
        output_memory=OutputMemory(from_kwarg="target_memory"),
        traits=OpTraits(pure_generator=True, shape_describing=True, shape_args=(0,)),
        doc="Allocate an uninitialised tile.",
    ),
    OpDef(
        "tile.ci", deduce_ci,
        args=(ArgSpec("start"), ArgSpec("shape")),
        kwargs=(KwargSpec("dtype", (DataType,), DataType.INT32, recorded=True),
                KwargSpec("descending", (bool,), False, recorded=True)),
        output_memory=_VEC,
        traits=OpTraits(positional_generator=True, pure_generator=True, shape_args=(1,)),
        doc="An index sequence start, start+1, ... (or descending) laid out along the tile.",
    ),
    OpDef(
        "tile.random", deduce_random,
        args=(*map(ArgSpec, RANDOM_ARGS), ArgSpec("shape"), ArgSpec("valid_shape", optional=True)),
        kwargs=(KwargSpec("dtype", (DataType,), DataType.UINT32, recorded=True),
                KwargSpec("rounds", (int,), 10, choices=(7, 10), recorded=True)),
        output_memory=_VEC,
        traits=OpTraits(positional_generator=True, pure_generator=True, shape_args=(6, 7)),
        doc="Counter-based random integers (Philox4x32: key key0/key1, counter counter0..3).",
    ),
]

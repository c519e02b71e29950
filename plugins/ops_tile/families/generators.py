"""Positional generators: values computed from the element position -- tile.ci / tensor.ci (an index
sequence), tile.random / tensor.random (counter-based random integers) and tile.tri (a triangular 0/1
matrix). (full / create / expands, which fill every position alike, are creation.py.)

IR layouts (docs/reference/ops.md):
* `ci(start, shape)` kwargs `dtype` (INT16 / INT32 / UINT16 / UINT32, default INT32), `descending`: every
  row is start, start+1, ... along the last axis (start, start-1, ... when descending); start is a scalar of
  the dtype (a literal takes it), the shape one row: leading dims static 1s, the last not 1. `pl.tile.arange`
  / `pl.tensor.arange` are the same.
* `random(key0, key1, counter0, counter1, counter2, counter3, shape[, valid_shape])` kwargs `dtype` (INT32 /
  UINT32, default UINT32), `rounds` (7 or 10): Philox4x32 with key (key0, key1) and 128-bit counter
  (counter0 .. counter3) + block number; block b gives elements 4b..4b+3 in row-major order; the keys and
  counters are INT32 scalars (an integer literal stands for its INT32 value); a 2-D shape. Other integer
  dtypes take the low bits of the words; floats map to [0, 1) from the top 24 bits.
* `tile.tri(diagonal, shape[, valid_shape])` kwargs `dtype` (default INT32), `upper`: ones on and below the
  `diagonal`-th diagonal (numpy tril; upper=True: on and above, numpy triu), zeros elsewhere; constant 2-D
  shape and valid shape.

The tile results are Vec; ci / random are positional and pure generators
(docs/passes/lower_auto_vector_split.md, when a halved call is sound), so the split passes cannot halve them on
the split axis. Tile forms: tensor.ci / tensor.random are the tile op of the same name.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import MemorySpace
from pypto_core.ir.expr import Call, ConstInt, Expr
from pypto_core.ir.span import Span
from pypto_core.ir.types import TensorType, TileType, Type, dims_equal
from pypto_core.ops.build import (
    require_dtype_in,
    require_rank,
    require_scalar,
    retype_literal,
    shape_text,
    static_int,
    to_bool,
    to_dtype,
    to_expr,
    to_int,
    to_tuple,
    tuple_elements,
)
from pypto_core.ops.family import OpFamily
from pypto_core.ops.opdef import ArgSpec, KwargSpec, OpDef, OpTraits
from pypto_core.ops.registry import create_op_call
from pypto_core.ops.tile_form import TileForm
from pypto_plugins.ops_tile.common.dsl import dsl_named, set_if
from pypto_plugins.ops_tile.common.shapes import shape_operand, static_shape
from pypto_plugins.ops_tile.common.views import VEC_RESULT, row_major, valid_view

family = OpFamily("generators", semantics="pypto_plugins.ops_tile.semantics.generators")

CI_DTYPES = (DataType.INT16, DataType.INT32, DataType.UINT16, DataType.UINT32)
TRI_DTYPES = (DataType.INT8, DataType.UINT8, DataType.INT16, DataType.INT32, DataType.UINT16, DataType.UINT32,
              DataType.FP16, DataType.BF16, DataType.FP32)
RANDOM_ARGS = ("key0", "key1", "counter0", "counter1", "counter2", "counter3")


# -- type rules ---------------------------------------------------------------------------------------------
def check_ci_start(op: str, start: Expr, dtype: DataType) -> None:
    """dtype in CI_DTYPES; start a scalar of that dtype."""
    require_dtype_in(op, dtype, CI_DTYPES, "dtype")
    t = require_scalar(op, start, "start")
    if t.dtype is not dtype:
        raise TypeError(f"{op}: start must be a {dtype.name} scalar (the dtype), got {t.dtype.name}; write "
                        f"pl.const(v, pl.{dtype.name}) or a literal")


def check_ci_shape(op: str, shape: Sequence[Expr]) -> None:
    """A non-empty shape whose leading dims are static 1s and whose last dim is not 1."""
    if not shape:
        raise TypeError(f"{op}: the shape must have at least one dimension")
    if any(static_int(d) != 1 for d in shape[:-1]):
        raise ValueError(f"{op}: the leading dims of {shape_text(shape)} must be 1 (ci fills one row)")
    if static_int(shape[-1]) == 1:
        raise ValueError(f"{op}: the last dim of {shape_text(shape)} must not be 1")


def deduce_tile_ci(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    dtype = kwargs.get("dtype", DataType.INT32)
    check_ci_start("tile.ci", args[0], dtype)
    shape = shape_operand("tile.ci", args[1])
    check_ci_shape("tile.ci", shape)
    return TileType(shape, dtype, None, None, MemorySpace.Vec)


def deduce_tensor_ci(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tensor.ci"
    dtype = kwargs.get("dtype", DataType.INT32)
    check_ci_start(op, args[0], dtype)
    shape = list(tuple_elements(args[1]))
    check_ci_shape(op, shape)
    return TensorType(shape, dtype)


def require_int32(op: str, e: Expr, what: str) -> None:
    """An INT32 scalar operand; an integer literal (an INDEX constant) stands for its INT32 value."""
    t = require_scalar(op, e, what)
    if t.dtype is not DataType.INT32 and not (isinstance(e, ConstInt) and t.dtype.is_int()):
        raise TypeError(f"{op}: {what} must be an INT32 scalar, got {t.dtype.name}")


def check_random(op: str, args: Sequence[Expr], kwargs: Mapping[str, Any]) -> DataType:
    """Six INT32 scalars, dtype INT32 / UINT32, rounds 7 or 10; returns the dtype."""
    for i, name in enumerate(RANDOM_ARGS):
        require_int32(op, args[i], name)
    dtype = kwargs.get("dtype", DataType.UINT32)
    require_dtype_in(op, dtype, (DataType.INT32, DataType.UINT32), "dtype")
    if kwargs.get("rounds", 10) not in (7, 10):
        raise ValueError(f"{op}: rounds must be 7 or 10, got {kwargs.get('rounds')}")
    return dtype


def deduce_tile_random(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    dtype = check_random("tile.random", args, kwargs)
    shape = shape_operand("tile.random", args[6])
    require_rank("tile.random", shape, 2, "shape")
    valid = tuple_elements(args[7]) if len(args) > 7 else ()
    if valid and len(valid) != len(shape):
        raise TypeError(f"tile.random: valid_shape has {len(valid)} dims for a {len(shape)}-D shape")
    if valid and dims_equal(valid, shape):
        valid = ()
    return TileType(shape, dtype, None, valid_view(valid, shape, MemorySpace.Vec), MemorySpace.Vec)


def deduce_tensor_random(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tensor.random"
    dtype = check_random(op, args, kwargs)
    shape = list(tuple_elements(args[6]))
    require_rank(op, shape, 2, "shape")
    return TensorType(shape, dtype)


def _static_valid(op: str, args: Sequence[Expr], index: int, shape: Sequence[Expr]) -> list[Expr]:
    """An optional static valid_shape operand (0 < v <= dim); [] when absent or empty."""
    valid = list(tuple_elements(args[index])) if len(args) > index else []
    if not valid:
        return []
    if len(valid) != len(shape):
        raise TypeError(f"{op}: valid_shape has {len(valid)} dims for a {len(shape)}-D shape")
    for v, d in zip(valid, shape):
        sv = static_int(v)
        if sv is None or not 0 < sv <= static_int(d):  # type: ignore[operator]
            raise ValueError(f"{op}: valid_shape {shape_text(valid)} must be constants in 1..dim of "
                             f"{shape_text(shape)}")
    return [] if dims_equal(valid, shape) else valid


def deduce_tri(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tile.tri"
    dtype = kwargs.get("dtype", DataType.INT32)
    require_dtype_in(op, dtype, TRI_DTYPES, "dtype")
    require_int32(op, args[0], "diagonal")
    shape = static_shape(op, args[1])
    require_rank(op, shape, 2, "shape")
    valid = _static_valid(op, args, 2, shape)
    return TileType(shape, dtype, None, valid_view(valid, shape, MemorySpace.Vec), MemorySpace.Vec)


# -- ops ----------------------------------------------------------------------------------------------------
family.op(OpDef("tile.ci", deduce_tile_ci, args=(ArgSpec("start"), ArgSpec("shape")),
                kwargs=(KwargSpec("dtype", (DataType,), DataType.INT32, recorded=True),
                        KwargSpec("descending", (bool,), False, recorded=True)),
                output_memory=VEC_RESULT,
                traits=OpTraits(positional_generator=True, pure_generator=True, shape_args=(1,)),
                doc="An index sequence start, start+1, ... (or descending) laid out along the tile."))
family.op(OpDef("tensor.ci", deduce_tensor_ci, args=(ArgSpec("start"), ArgSpec("shape")),
                kwargs=(KwargSpec("dtype", (DataType,), DataType.INT32, recorded=True),
                        KwargSpec("descending", (bool,), False)),
                traits=OpTraits(shape_args=(1,)),
                doc="start, start+1, ... (or descending) along the last axis of a tensor."))
family.op(OpDef("tile.random", deduce_tile_random,
                args=(*map(ArgSpec, RANDOM_ARGS), ArgSpec("shape"), ArgSpec("valid_shape", optional=True)),
                kwargs=(KwargSpec("dtype", (DataType,), DataType.UINT32, recorded=True),
                        KwargSpec("rounds", (int,), 10, choices=(7, 10), recorded=True)),
                output_memory=VEC_RESULT,
                traits=OpTraits(positional_generator=True, pure_generator=True, shape_args=(6, 7)),
                doc="Counter-based random integers (Philox4x32: key key0/key1, counter counter0..3)."))
family.op(OpDef("tensor.random", deduce_tensor_random, args=(*map(ArgSpec, RANDOM_ARGS), ArgSpec("shape")),
                kwargs=(KwargSpec("dtype", (DataType,), DataType.UINT32, recorded=True),
                        KwargSpec("rounds", (int,), 10, choices=(7, 10))),
                traits=OpTraits(shape_args=(6,)),
                doc="Counter-based random integers (Philox4x32: key key0/key1, counter counter0..3) in a 2-D "
                    "tensor."))
family.op(OpDef("tile.tri", deduce_tri, args=(ArgSpec("diagonal"), ArgSpec("shape"), ArgSpec("valid_shape", optional=True)),
                kwargs=(KwargSpec("dtype", (DataType,), DataType.INT32, recorded=True),
                        KwargSpec("upper", (bool,), False, recorded=True)),
                output_memory=VEC_RESULT, traits=OpTraits(shape_args=(1, 2)),
                doc="A triangular 0/1 matrix: ones on and below the `diagonal`-th diagonal (on and above if upper)."))


# -- tile forms ----------------------------------------------------------------------------------------------
family.implement("tile_form", "tensor.ci", TileForm(op="tile.ci"))
family.implement("tile_form", "tensor.random", TileForm(op="tile.random"))


# -- DSL ----------------------------------------------------------------------------------------------------
def random_words(words: Any, span: Span | None) -> list[Any]:
    """The keys and counters (INT32 scalars; a literal stays an INDEX constant, printed bare)."""
    return [to_expr(v, span) for v in words]


@family.dsl("tile.ci")
@dsl_named("ci")
def tile_ci(start: Any, shape: Any, dtype: DataType = DataType.INT32, descending: Any = False,
            span: Span | None = None) -> Call:
    """A literal start takes the dtype; dtype and descending are always recorded."""
    dtype = to_dtype(dtype)
    kwargs = {"dtype": dtype, "descending": to_bool(descending, "descending")}
    return create_op_call("tile.ci", [retype_literal(to_expr(start, span), dtype), to_tuple(shape, span)], kwargs,
                          span=span)


@family.dsl("tensor.ci")
@dsl_named("tensor_ci")
def tensor_ci(start: Any, shape: Any, dtype: DataType = DataType.INT32, descending: Any = False,
              span: Span | None = None) -> Call:
    """descending recorded only when set."""
    dtype = to_dtype(dtype)
    kwargs: dict[str, Any] = {"dtype": dtype}
    set_if(kwargs, "descending", to_bool(descending, "descending"), False)
    return create_op_call("tensor.ci", [retype_literal(to_expr(start, span), dtype), to_tuple(shape, span)], kwargs,
                          span=span)


@family.dsl("tile.random")
@dsl_named("random")
def tile_random(key0: Any, key1: Any, counter0: Any, counter1: Any, counter2: Any, counter3: Any, shape: Any,
                valid_shape: Any = None, dtype: DataType = DataType.UINT32, rounds: Any = 10,
                span: Span | None = None) -> Call:
    args = random_words((key0, key1, counter0, counter1, counter2, counter3), span)
    args.append(to_tuple(shape, span))
    if valid_shape is not None:
        args.append(to_tuple(valid_shape, span))
    kwargs = {"dtype": to_dtype(dtype), "rounds": to_int(rounds, "rounds")}
    return create_op_call("tile.random", args, kwargs, span=span)


@family.dsl("tensor.random")
@dsl_named("tensor_random")
def tensor_random(key0: Any, key1: Any, counter0: Any, counter1: Any, counter2: Any, counter3: Any, shape: Any,
                  dtype: DataType = DataType.UINT32, rounds: Any = 10, span: Span | None = None) -> Call:
    """rounds recorded only when not 10."""
    args = [*random_words((key0, key1, counter0, counter1, counter2, counter3), span), to_tuple(shape, span)]
    kwargs: dict[str, Any] = {"dtype": to_dtype(dtype)}
    set_if(kwargs, "rounds", to_int(rounds, "rounds"), 10)
    return create_op_call("tensor.random", args, kwargs, span=span)


@family.dsl("tile.tri")
@dsl_named("tri")
def tile_tri(diagonal: Any, shape: Any, valid_shape: Any = None, dtype: DataType = DataType.INT32, upper: Any = False,
             span: Span | None = None) -> Call:
    args = [to_expr(diagonal, span), to_tuple(shape, span)]
    if valid_shape is not None:
        args.append(to_tuple(valid_shape, span))
    return create_op_call("tile.tri", args, {"dtype": to_dtype(dtype), "upper": to_bool(upper, "upper")}, span=span)


family.dsl_function("tile.arange", tile_ci)  # PyPTO's spelling
family.dsl_function("tensor.arange", tensor_ci)
family.dsl_function("arange", tensor_ci)
family.dsl_function("random", tensor_random)
family.dsl_function("tri", tile_tri)


# The row-major tiles the backend's instruction needs (ResolveBackendOpLayouts, docs/plugins.md, op interfaces).
family.implement("row_major_layout", "tile.random", row_major(()))
family.implement("row_major_layout", "tile.tri", row_major(()))

"""DSL conversion helpers the families' hand-written builders share (docs/dsl.md, the printed form).

A DSL function is also the IR builder of its name: it takes the op's IR operands positionally, in order,
and its kwargs by name, so the printed text of a call parses back to the same call. Builders receive a mix
of Python values and IR (pypto_core/ops/build.py says which); these helpers turn them into operands.
"""

from __future__ import annotations

import keyword
from collections.abc import Callable
from typing import Any

from pypto_core.ir.dtypes import DataType
from pypto_core.ir.expr import ConstBool, ConstFloat, ConstInt, Expr
from pypto_core.ir.span import Span
from pypto_core.ops.build import (
    dsl_entry,
    element_dtype,
    operand_kind,
    reject_tensor_tile_mix,
    retype_literal,
    to_bool,
    to_expr,
    to_int,
)
from pypto_plugins.ops_tile.common.elementwise import CMP_MODES

Builder = Callable[..., Any]


def dsl_named(name: str) -> Callable[[Builder], Builder]:
    """`@dsl_named("div")`: a `dsl_entry` builder whose function name (the one its error messages show) is
    `name`; a family defines the tile, the tensor and the top-level `div` side by side."""

    def wrap(fn: Builder) -> Builder:
        fn.__name__ = name
        return dsl_entry(fn)

    return wrap


def dsl_name(op_name: str) -> str:
    """The DSL spelling of an op's last name component: a Python keyword gets `_` (`pl.tile.and_`)."""
    return op_name + "_" if keyword.iskeyword(op_name) else op_name


def unchecked(fn: Builder) -> Builder:
    """What a `dsl_entry` wrapper wraps. The wrapper only explains calls that do not fit the signature; a
    call a dispatcher makes always fits, so it goes straight to the builder (the parser's hot path)."""
    return getattr(fn, "dsl_target", fn)


def registered(name: str) -> Builder:
    """The DSL function registered under `name` (`tile.exp`), looked up on the first call: a dispatcher's
    target whose builder the family derives from the OpDef (`family.op(..., dsl=...)`)."""
    found: list[Builder] = []

    def call(*args: Any, **kwargs: Any) -> Any:
        if not found:
            from pypto_core.ops.registry import op_registry

            found.append(op_registry().dsl[name].function)
        return found[0](*args, **kwargs)

    call.__name__ = name.rpartition(".")[2]
    return call


def scalar_for(value: Any, operand: Expr, span: Span | None) -> Expr:
    """A scalar operand of a tile / tensor op: an untyped literal takes the operand's element dtype."""
    return retype_literal(to_expr(value, span), element_dtype(operand.type))


def fill_value(value: Any, dtype: DataType, span: Span | None) -> Expr:
    """The value of `full`: a number becomes a constant of the fill dtype (printed bare)."""
    if isinstance(value, Expr) and not isinstance(value, (ConstInt, ConstFloat, ConstBool)):
        return value
    v = value.value if isinstance(value, (ConstInt, ConstFloat, ConstBool)) else value
    if not isinstance(v, (bool, int, float)):
        raise TypeError(f"value must be a number, got {value!r}")
    if dtype.is_bool():
        return ConstBool(bool(v), span)
    if dtype.is_float():
        return ConstFloat(float(v), dtype, span)
    if float(v) != int(v):
        raise ValueError(f"value {v} is not an integer but the dtype is {dtype.name}")
    return ConstInt(int(v), dtype, span)


def set_if(kwargs: dict[str, Any], key: str, value: Any, default: Any = None) -> None:
    """Record an optional kwarg only when it differs from its default (so it is not printed)."""
    if value is not None and value != default:
        kwargs[key] = value


def precision(high_precision: Any) -> dict[str, Any]:
    """`high_precision` recorded only when True (so the default is not printed)."""
    return {"high_precision": True} if to_bool(high_precision, "high_precision") else {}


def to_cmp_mode(value: Any) -> int:
    """cmp_mode as its int (0..5 = eq, ne, lt, le, gt, ge); the names are accepted too."""
    if isinstance(value, str):
        if value.lower() not in CMP_MODES:
            raise ValueError(f"cmp_mode must be one of {', '.join(map(repr, CMP_MODES))}, got {value!r}")
        return CMP_MODES.index(value.lower())
    return to_int(value, "cmp_mode")


def tile_only(name: str, fn: Builder) -> Builder:
    """A top-level `pl.<name>` that exists for tiles only: a tensor first operand gets a clear error."""

    def promoted(first: Any, *args: Any, span: Span | None = None, **kwargs: Any) -> Any:
        if operand_kind(first) == "Tensor":
            raise TypeError(f"works on tiles; load the tensor into a tile first (pl.load), or use "
                            f"pl.tile.{name} on a tile")
        return fn(first, *args, span=span, **kwargs)

    promoted.__name__ = name
    return promoted


def dispatch_between(name: str, tile_fn: Builder, tensor_fn: Builder, mixed: bool = False) -> Builder:
    """A top-level `pl.<name>(x, ...)`: `tile_fn` for a tile x, `tensor_fn` for a tensor x. `mixed`: the op
    itself takes tiles and tensors together (gather_row's dst and GM source), so operands are not checked
    for a mix ("cannot mix Tensor and Tile arguments")."""

    def build(x: Any, *args: Any, span: Span | None = None, **kwargs: Any) -> Any:
        if not mixed:
            reject_tensor_tile_mix(x, *args, *kwargs.values())
        kind = operand_kind(x)
        if kind == "Tile":
            return tile_fn(x, *args, span=span, **kwargs)
        if kind == "Tensor":
            return tensor_fn(x, *args, span=span, **kwargs)
        raise TypeError(f"expects a tensor or a tile as its first operand, got {kind}")

    build.__name__ = name
    return build


def dim_first(args: tuple[Any, ...], dim: Any, names: tuple[str, ...]) -> tuple[Any, list[Any]]:
    """PyPTO's (dim, index, src) or the printed (index, src) + dim=: (dim, the operands)."""
    operands = list(args)
    if operands and not isinstance(operands[0], Expr) or (operands and isinstance(operands[0], ConstInt)):
        if dim is not None:
            raise TypeError("dim given twice")
        dim = operands.pop(0)
    if len(operands) > len(names):
        raise TypeError(f"takes at most {len(names)} operand(s) ({', '.join(names)}) after the input")
    return dim, operands

"""Small helpers shared by the DSL modules: building calls from DSL values, kwarg normalisation."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pypto_core.ir.dtypes import DataType
from pypto_core.ir.expr import ConstBool, ConstFloat, ConstInt, Expr
from pypto_core.ir.span import Span
from pypto_core.ops.build import dsl_entry, element_dtype, operand_kind, retype_literal, to_expr, to_int

Builder = Callable[..., Any]

__all__ = ["Builder", "dsl_entry", "dsl_name", "scalar_for", "fill_value", "set_if", "operand_kind", "tile_only",
           "to_cmp_mode"]


def dsl_name(op_name: str) -> str:
    """The DSL spelling of an op's last name component: Python keywords get `_` (`pl.tile.and_`, docs/dsl.md, the printed form)."""
    import keyword

    return op_name + "_" if keyword.iskeyword(op_name) else op_name


def to_cmp_mode(value: Any) -> int:
    """cmp_mode as its int (0..5 = eq, ne, lt, gt, ge, le); the names are accepted too."""
    from pypto_plugins.ops_tile.ops.tile_elementwise import CMP_MODES

    if isinstance(value, str):
        if value.lower() not in CMP_MODES:
            raise ValueError(f"cmp_mode must be one of {', '.join(map(repr, CMP_MODES))}, got {value!r}")
        return CMP_MODES.index(value.lower())
    return to_int(value, "cmp_mode")


def scalar_for(value: Any, operand: Expr, span: Span | None) -> Expr:
    """A scalar operand of a tile/tensor op: an untyped literal takes the operand's element dtype."""
    return retype_literal(to_expr(value, span), element_dtype(operand.type))


def fill_value(value: Any, dtype: DataType, span: Span | None) -> Expr:
    """The value of `full`: a number becomes a constant of the fill dtype (printed bare, docs/dsl.md, the printed form)."""
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


def tile_only(name: str, fn: Builder) -> Builder:
    """A promoted `pl.<name>` that exists for tiles only: a tensor first operand gets a clear error."""

    def promoted(first: Any, *args: Any, span: Span | None = None, **kwargs: Any) -> Any:
        if operand_kind(first) == "Tensor":
            raise TypeError(f"works on tiles; load the tensor into a tile first (pl.load), or use "
                            f"pl.tile.{name} on a tile")
        return fn(first, *args, span=span, **kwargs)

    promoted.__name__ = name
    return promoted

"""Python values from outside a pl body, as the parser uses them (docs/dsl.md).

When `@pl.program` / `@pl.function` decorates at run time, a name the body does not bind is looked up in
the decorating frame's locals, the function's closure cells and its globals (decorators.py); the text
path reads module constants from the AST instead (module_constants.py). Either way the value must be
constant-like: `int`, `float`, `bool`, `str`, `None`, lists and tuples of those (nested), a `DataType`,
an enum member, a `pl.dynamic` dim (or Python arithmetic on one), or an IR expression. Lists and tuples
become Python lists (a literal `(16, 8)` in a body does too), dims become their program-wide `Var`.
"""

from __future__ import annotations

import enum
import numbers
from collections.abc import Callable
from typing import Any

from pypto_core.ir import expr as E
from pypto_core.ir.dtypes import DataType
from pypto_core.language.parser.env import DynamicDim, RuntimeDimExpr

SUPPORTED = ("int, float, bool, str, None, lists and tuples of these, dtypes (pl.FP32), enum members "
             "(pl.Mem.Vec) and pl.dynamic dims")


def unsupported_part(value: Any, where: str = "") -> tuple[str, Any] | None:
    """(the index path, the value) of the first part of `value` that is not constant-like, or None."""
    if type(value) in (list, tuple):
        for i, item in enumerate(value):
            bad = unsupported_part(item, f"{where}[{i}]")
            if bad is not None:
                return bad
        return None
    if isinstance(value, RuntimeDimExpr) and value.build is None:
        return where, value
    if value is None or isinstance(value, (bool, str, DataType, enum.Enum, DynamicDim, E.Expr, numbers.Real)):
        return None
    return where, value


def python_type_name(value: Any) -> str:
    """`list`, `dict`, `numpy.ndarray`: how a message names a value's type."""
    if isinstance(value, RuntimeDimExpr):
        return "pl.dynamic expression it cannot rebuild"
    cls = type(value)
    module = cls.__module__
    return cls.__qualname__ if module in ("builtins", "__main__") else f"{module}.{cls.__qualname__}"


def unsupported_message(name: str, value: Any, where: str, bad: Any) -> str:
    """"'x' is a Python dict; ..." naming the variable and the offending type (docs/dsl.md, errors)."""
    what = f"a Python {python_type_name(value)}"
    if where:
        inner = python_type_name(bad)
        what += f" whose element {name}{where} is {'an' if inner[0] in 'aeiou' else 'a'} {inner}"
    return (f"'{name}' is {what}; a pl function can only use constants from the enclosing Python scope: "
            f"{SUPPORTED}")


def to_parser_value(value: Any, dynamic_var: Callable[[DynamicDim], E.Var]) -> Any:
    """A checked constant as the parser's values: tuples as lists, numpy-style numbers as int/float,
    dims as their Var, Python arithmetic on dims as the IR expression it spells."""
    if type(value) in (list, tuple):
        return [to_parser_value(v, dynamic_var) for v in value]
    if isinstance(value, RuntimeDimExpr):
        operands = [to_parser_value(v, dynamic_var) for v in value.operands]
        return value.build(*operands)  # type: ignore[misc]
    if isinstance(value, DynamicDim):
        return dynamic_var(value)
    if isinstance(value, (bool, enum.Enum, E.Expr)) or value is None:
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real) and not isinstance(value, float):
        return float(value)
    return value


def is_parse_time_constant(value: Any) -> bool:
    """A value a body assignment binds without an IR statement (`dt = pl.FP16`): it has no run-time form."""
    return isinstance(value, (DataType, enum.Enum, str)) and not isinstance(value, E.Expr)

"""A DSL function / IR builder derived from an OpDef's ArgSpec / KwargSpec declaration.

Most ops need nothing from their builder but "check the call, build it": `pl.tile.exp(t)` is
`create_op_call("tile.exp", [t])`. For those the builder is derived, so the signature is written once
(in the OpDef). The derived function:

* takes the op's positional arguments by their ArgSpec names (optional ones default to None and are
  left out of the call; one given after an omitted one is an error), then `*rest` for a variadic op;
* takes each kwarg by name with its declared default; a kwarg is recorded on the call when it is
  given and differs from its default (a default is not printed), or when the spec says `recorded`;
* turns Python numbers and sequences given as operands into IR (`to_expr`, `to_tuple` for a list),
  and IR constants given as kwargs into the Python value the spec asks for.

Ops whose builder chooses between ops (`pl.tile.add(t, 1.0)` builds `tile.adds`), retypes literals
or normalises spellings keep a hand-written builder in their family.
"""

from __future__ import annotations

import enum
import inspect
from collections.abc import Callable
from typing import Any

from pypto_core.ir.dtypes import DataType
from pypto_core.ir.expr import ConstBool, ConstFloat, ConstInt, Expr
from pypto_core.ir.span import Span
from pypto_core.ops.opdef import KwargSpec, OpDef

_NOT_GIVEN: Any = inspect.Parameter.empty


def derived_builder(opdef: OpDef, function_name: str) -> Callable[..., Any]:
    from pypto_core.ops.build import dsl_entry

    params = [inspect.Parameter(a.name, inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                default=None if a.optional else _NOT_GIVEN) for a in opdef.args]
    if opdef.variadic:
        params.append(inspect.Parameter("rest", inspect.Parameter.VAR_POSITIONAL))
    params += [inspect.Parameter(k.name, inspect.Parameter.KEYWORD_ONLY, default=k.default) for k in opdef.kwargs]
    params.append(inspect.Parameter("span", inspect.Parameter.KEYWORD_ONLY, default=None))
    signature = inspect.Signature(params)
    op_name = opdef.name
    arg_names = [a.name for a in opdef.args]

    def build(*args: Any, **kwargs: Any) -> Any:
        from pypto_core.ops.registry import create_op_call

        bound = signature.bind(*args, **kwargs)
        values = bound.arguments
        span = values.get("span")
        operands: list[Expr] = []
        omitted = ""
        for name in arg_names:
            value = values.get(name)
            if value is None:
                omitted = omitted or name
                continue
            if omitted:
                raise TypeError(f"argument '{name}' given while the optional '{omitted}' before it is not")
            operands.append(_operand(value, span))
        operands += [_operand(v, span) for v in values.get("rest", ())]
        recorded: dict[str, Any] = {}
        for spec in opdef.kwargs:
            if spec.name not in values:
                continue
            value = _kwarg_value(spec, values[spec.name])
            if value is not None and (spec.recorded or value != spec.default):
                recorded[spec.name] = value
        return create_op_call(op_name, operands, recorded, span=span)

    build.__name__ = build.__qualname__ = function_name
    build.__signature__ = signature  # type: ignore[attr-defined]
    build.__doc__ = opdef.doc
    return dsl_entry(build)


def _operand(value: Any, span: Span | None) -> Expr:
    from pypto_core.ops.build import to_expr, to_tuple

    if isinstance(value, (list, tuple)):
        return to_tuple(value, span)
    return to_expr(value, span)


def _kwarg_value(spec: KwargSpec, value: Any) -> Any:
    """The Python value a kwarg spec asks for, from what the parser or a caller passed (an IR constant,
    an enum member for an int kwarg)."""
    if isinstance(value, (ConstInt, ConstFloat, ConstBool)) and Expr not in spec.types:
        value = value.value
    if isinstance(value, enum.IntEnum) and int in spec.types and type(value) not in spec.types:
        return int(value)
    if isinstance(value, int) and not isinstance(value, bool) and float in spec.types and int not in spec.types:
        return float(value)
    if isinstance(value, str) and DataType in spec.types:
        from pypto_core.ops.build import to_dtype

        return to_dtype(value, spec.name)
    return value

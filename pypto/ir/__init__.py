"""`from pypto import ir`: IR classes, helpers, the printer and pass-context names (docs/architecture.md, the core)."""

from typing import Any as _Any

from pypto.ir import op  # noqa: E402
from pypto_core.ir import *  # noqa: F403
from pypto_core.ir import __all__ as _core_all
from pypto_core.ir.dtypes import DataType as _DataType
from pypto_core.ir.scalar_ops import (
    abs_,
    add,
    and_,
    bit_and,
    bit_not,
    bit_or,
    bit_shift_left,
    bit_shift_right,
    bit_xor,
    cast,
    eq,
    floordiv,
    ge,
    gt,
    le,
    lt,
    max_,
    min_,
    mod,
    mul,
    ne,
    neg,
    not_,
    or_,
    pow,
    sub,
    truediv,
)
from pypto_core.ir.utils import substitute
from pypto_core.language.printer import python_print, python_print_type
from pypto_core.ops.registry import create_op_call, get_op, is_op_registered, set_call_attrs

for _dt in _DataType:
    globals()[_dt.name] = _dt
del _dt


def deduce_call_return_type(callee_params: _Any, args: _Any, return_types: _Any) -> _Any:
    """The type of a call of a function with these params and return types, in the caller's terms."""
    from pypto_core.ir.calls import call_return_type

    return call_return_type(list(callee_params), list(return_types), list(args))


_PASS_NAMES = ("PassContext", "VerificationLevel", "VerificationMode", "make_roundtrip_instrument")


def __getattr__(name: str) -> _Any:
    if name in _PASS_NAMES:
        from pypto_core import passes

        return getattr(passes, name)
    if name in ("PassManager", "OptimizationStrategy"):
        from pypto.ir import pass_manager

        return getattr(pass_manager, name)
    raise AttributeError(f"module 'pypto.ir' has no attribute '{name}'")


__all__ = [*_core_all, "python_print", "python_print_type", "create_op_call", "get_op", "is_op_registered",
           "set_call_attrs", "op", "substitute", "add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "eq",
           "ne", "lt", "le", "gt", "ge", "bit_and", "bit_or", "bit_xor", "bit_shift_left", "bit_shift_right",
           "min_", "max_", "neg", "bit_not", "not_", "and_", "or_", "cast", "abs_", "deduce_call_return_type"]

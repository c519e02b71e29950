"""A kernel ExpandMixedKernel wraps must return what it declares (docs/passes/expand_mixed_kernel.md, errors).

The parser accepts a function whose `return` gives a tensor of another dtype or shape than its annotation as long
as no method calls it (PyPTO does too: docs/dsl.md, functions). Splitting a mixed kernel adds a caller — its Group
wrapper calls the AIV and AIC halves and reads their results as the declared type — so such a kernel cannot be
split into a program that reads back (the parser refuses the call) or computes what it says: a located error.
"""

from __future__ import annotations

from pypto_core.errors import UserError
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.declared_types import returned_types, shaped_value_differs
from pypto_core.ir.utils import flatten_to_stmts


def check_declared_returns(func: F.Function, pass_name: str) -> None:
    stmts = flatten_to_stmts(func.body)
    ret = stmts[-1] if stmts and isinstance(stmts[-1], S.ReturnStmt) else None
    if ret is None or not func.return_types:
        return
    types = returned_types(ret.value, len(func.return_types))
    for i, (got, want) in enumerate(zip(types, func.return_types)):
        if not shaped_value_differs(got, want):
            continue
        where = f"return value {i}" if len(types) > 1 else "the return value"
        raise UserError(f"{pass_name}: {where} of InCore function '{func.name}' is a {got}, but the function "
                        f"declares {want}; splitting the mixed kernel makes its Group wrapper call it and read the "
                        f"declared type: return a value of the declared type (pl.cast converts a dtype), or fix the "
                        f"annotation", ret.value[i].span if i < len(ret.value) else ret.span)

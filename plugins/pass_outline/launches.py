"""A kernel that calls a function launching kernels of its own is the program's mistake.

After outlining, an Opaque function with `pl.at(level=pl.Level.CORE_GROUP)` scopes is an Orchestration function:
it launches kernels. A kernel (an InCore function: an outlined scope or region, or one written as such) runs on
the cores and cannot launch kernels, so a call from a kernel to a launching function (directly, or through
functions that call one) is a located ValueError at the call, naming the fix. Left alone it would make the
kernel's lanes run the callee's kernels, a cube pipe setup on an AIV lane included.
"""

from __future__ import annotations

from collections.abc import Sequence

from pypto_core.errors import UserError
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir.enums import FunctionType
from pypto_core.ir.utils import function_calls

_KERNEL_TYPES = (FunctionType.InCore, FunctionType.AIC, FunctionType.AIV)


def reject_kernels_launching_kernels(funcs: Sequence[F.Function]) -> None:
    cache: dict[str, list[E.Call]] = {}

    def calls_of(f: F.Function) -> list[E.Call]:  # each body walked once, and only when asked
        found = cache.get(f.name)
        if found is None:
            found = cache[f.name] = function_calls(f.body)
        return found

    kinds = {f.name: f.func_type for f in funcs}
    launching = {f.name for f in funcs if f.func_type is FunctionType.Orchestration}
    if not launching:
        return
    changed = True
    while changed:  # a host-side function calling a launcher launches kernels too
        changed = False
        for f in funcs:
            if f.name in launching or f.func_type in _KERNEL_TYPES or f.func_type is FunctionType.Group:
                continue
            if any(c.op.name in launching for c in calls_of(f)):  # type: ignore[union-attr]
                launching.add(f.name)
                changed = True
    for f in funcs:
        if kinds[f.name] not in _KERNEL_TYPES:
            continue
        call = next((c for c in calls_of(f) if c.op.name in launching), None)  # type: ignore[union-attr]
        if call is not None:
            callee = call.op.name  # type: ignore[union-attr]
            raise UserError(f"OutlineIncoreScopes: this call of '{callee}' is inside a kernel ('{f.name}': a "
                            f"pl.at(level=pl.Level.CORE_GROUP) scope or a pl.split_aiv region, which runs on the "
                            f"cores), but '{callee}' launches kernels of its own (its pl.at scopes); a kernel "
                            f"cannot launch kernels: call '{callee}' outside the scope or region, or write its "
                            f"work here without its pl.at scope", call.span)

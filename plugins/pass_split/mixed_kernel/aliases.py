"""Which tensor a value aliases: a store's result is the tensor it writes (asked of the registry's arg
effects), a copy is what it copies. ExpandMixedKernel follows these to a GM origin (fences) and remaps a
store one side dropped to the tensor it wrote (core_body)."""

from __future__ import annotations

from collections.abc import Mapping

from pypto_core.analysis.lineage import written_arg_index
from pypto_core.ir import expr as E
from pypto_core.ir.types import TensorType


def written_tensor(value: E.Expr) -> E.Expr | None:
    """The tensor a call's result aliases (tile.store returns the tensor it writes), or what a copy copies."""
    if isinstance(value, E.Var):
        return value
    if isinstance(value, E.Call) and type(value.op) is E.Op and isinstance(value.type, TensorType):
        index = written_arg_index(value)
        if index is not None:
            return value.args[index]
    return None


def gm_origin(e: E.Expr, defs: Mapping[int, E.Expr]) -> E.Expr:
    """Follow store results and copies back to the tensor they all alias (a parameter, usually)."""
    seen: set[int] = set()
    while isinstance(e, E.Var) and id(e) in defs and id(e) not in seen:
        seen.add(id(e))
        target = written_tensor(defs[id(e)])
        if target is None:
            break
        e = target
    return e

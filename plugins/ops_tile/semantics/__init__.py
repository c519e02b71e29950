"""numpy semantics of the ops_tile ops for the reference machine: EVALUATORS maps op name -> evaluate.

The plugin attaches `EVALUATORS[name]` as each OpDef's `evaluate` when it registers the op (see
plugin.py); the signature is documented in pypto_core/interp/context.py. One module per family;
names of ops the plugin does not (yet) register are harmless here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def _collect() -> dict[str, Callable[..., Any]]:
    from pypto_plugins.ops_tile.semantics import (
        broadcast_reduce,
        cast,
        cross_core,
        elementwise,
        elementwise_extra,
        gather_sort,
        generators,
        indexing,
        matmul,
        memory,
        reductions,
        system_matmul,
        views,
        views_alloc,
    )

    table: dict[str, Callable[..., Any]] = {}
    for module in (elementwise, memory, views, reductions, matmul, cast, indexing, generators, cross_core,
                   elementwise_extra, broadcast_reduce, views_alloc, gather_sort, system_matmul):
        for name, fn in module.evaluators().items():
            if name in table:
                raise RuntimeError(f"two semantics modules define op '{name}'")
            table[name] = fn
    return table


EVALUATORS: dict[str, Callable[..., Any]] = _collect()

"""`pypto.testing.recognize_dsa_reuse_penalties(function)` (docs/passes/allocate_memory_addr.md, DSA_RP): the
soft edges the DSA_RP solver starts from, for one function after InitMemRef and MaterializeSemanticAliases.

Each edge is `{"first_interval", "second_interval", "first_name", "second_name", "cost"}`: the buffers by
their number in definition order and their first tile's name; cost 1 for a cross-pipe reuse."""

from __future__ import annotations

from typing import Any

from pypto_core.ir import function as F
from pypto_plugins.pass_memory.dsa_rp.placement import DsaProblem


def recognize_dsa_reuse_penalties(function: Any) -> list[dict[str, object]]:
    if isinstance(function, F.Program):
        raise TypeError("recognize_dsa_reuse_penalties takes one Function (program.get_function(name)), not a "
                        "Program")
    from pypto_core.backend.selection import active_backend
    from pypto_core.passes.context import PassContext

    ctx = PassContext.current()
    backend = ctx.backend if ctx is not None else active_backend(None)
    return [edge.as_dict() for edge in DsaProblem(function, backend, hazard=False).soft_edges()]

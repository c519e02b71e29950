"""`passes.MemoryPlanner`: which memory planner the memory passes and the L0 tile chooser serve
(docs/memory_planning.md, the planners).

PYPTO coalesces buffers by lifetime and bump-allocates addresses; DSA_RP places buffers without a coalescing
pass; PTOAS leaves addresses to the assembler (no addresses at all). The planner of the innermost active
`PassContext` is the one a pass reads; without a context it is PYPTO.
"""

from __future__ import annotations

import enum
from typing import Any


class MemoryPlanner(enum.IntEnum):
    PYPTO = 0
    PTOAS = 1
    DSA_RP = 2


def active_memory_planner(ctx: Any = None) -> MemoryPlanner:
    """The planner of `ctx`, else of the innermost active PassContext, else PYPTO."""
    from pypto_core.passes.context import PassContext

    contexts = [ctx] if ctx is not None else []
    current = PassContext.current()
    if current is not None:
        contexts.append(current)
    for context in contexts:
        planner = getattr(context, "memory_planner", None)
        if planner is not None:
            return MemoryPlanner(int(planner))
    return MemoryPlanner.PYPTO

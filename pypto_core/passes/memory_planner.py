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
        if isinstance(planner, str):  # a planner given by name ("PTOAS")
            return MemoryPlanner[planner.rpartition(".")[2]]
        if planner is not None:
            return MemoryPlanner(int(planner))
    return MemoryPlanner.PYPTO


def runs_under(p: Any, planner: MemoryPlanner) -> bool:
    """Whether a pass belongs in a pipeline built under `planner`: a pass states the planners that run it in
    its `planners` class attribute (the memory passes do); a pass stating none runs under every planner."""
    planners = getattr(p, "planners", None)
    return planners is None or planner in planners


def passes_for_planner(passes: list[Any], planner: MemoryPlanner) -> list[Any]:
    """The passes a pipeline built under `planner` keeps (docs/memory_planning.md, planners)."""
    return [p for p in passes if runs_under(p, planner)]


def check_planner(built_under: MemoryPlanner) -> None:
    """PyPTO's RuntimeError when a pipeline built under one planner runs under another (its passes were chosen
    for the planner in force when it was built)."""
    current = active_memory_planner()
    if current is not built_under:
        raise RuntimeError(f"PassManager was constructed under memory_planner={built_under.name} but is being run "
                           f"under memory_planner={current.name}; build the PassManager inside the PassContext it "
                           f"runs in")

"""MemoryReuse (docs/passes/memory_reuse.md): tiles whose lifetimes do not overlap share one allocation.

Per function (not Orchestration; a function with no tile definitions is returned unchanged): lifetimes over
program points (reuse/lifetimes.py), one interval per allocation (reuse/intervals.py), first-fit packing per
memory space under the sharing rules and the capacity fit (reuse/sharing.py, reuse/packing.py), the commit
(reuse/commit.py) and the fix-ups that keep loop and if carries consistent (reuse/fixups.py), with the
accumulator if-phi coalescing (acc_if_phi.py) before the yield fix-up.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pypto_core.errors import UserError
from pypto_core.ir import function as F
from pypto_core.ir.enums import FunctionType
from pypto_core.passes.context import PassContext
from pypto_core.passes.memory_planner import MemoryPlanner
from pypto_core.passes.pass_base import Pass
from pypto_plugins.pass_memory.acc_if_phi import coalesce_acc_if_phis
from pypto_plugins.pass_memory.memrefs import allocations, on_chip_memref
from pypto_plugins.pass_memory.reserve_buffers import resolve_windows
from pypto_plugins.pass_memory.reuse import fixups
from pypto_plugins.pass_memory.reuse.commit import commit, moves
from pypto_plugins.pass_memory.reuse.intervals import build_intervals, overlap
from pypto_plugins.pass_memory.reuse.lifetimes import Lifetimes, analyze
from pypto_plugins.pass_memory.reuse.packing import Buffer, pack_space
from pypto_plugins.pass_memory.reuse.sharing import SharingRules


class MemoryReuse(Pass):
    """Put tiles of one memory space whose lifetimes do not overlap on one allocation."""

    name = "MemoryReuse"
    factory_name = "memory_reuse"
    required = ("NormalizedStmtStructure", "SplitIncoreOrch", "HasMemRefs", "IncoreTileOps", "TileOps2D")
    produced = ("NormalizedStmtStructure",)
    # Only the PYPTO planner coalesces buffers in a pass of its own (docs/memory_planning.md, planners).
    planners: ClassVar[tuple[MemoryPlanner, ...]] = (MemoryPlanner.PYPTO,)
    description = ("Share one allocation between tiles of a memory space whose lifetimes do not overlap (unless an "
                   "op may not write over its operand, a pipeline stage or the split-AIV hazard forbids it); copy "
                   "loop / if carries into their buffer where needed; delete allocations left unused.")

    def run(self, program: F.Program, ctx: Any) -> F.Program:
        backend = ctx.backend
        # The split-AIV hazard guard is on only inside a PassContext (docs/passes/memory_reuse.md).
        hazard = bool(backend.fact("split_load_tpop_hazard", False)) and PassContext.current() is not None
        funcs = [reuse_function(f, backend, hazard) if f.func_type is not FunctionType.Orchestration else f
                 for f in program.functions.values()]
        if all(a is b for a, b in zip(funcs, program.functions.values())):
            return program
        return program.with_functions(funcs)


def reuse_function(func: F.Function, backend: Any, hazard: bool) -> F.Function:
    life = analyze(func)
    if not life.order:
        return func
    reject_shared_declared_slots(life)
    intervals = build_intervals(life, allocations(func))
    rules = SharingRules(func, life, intervals, backend, hazard)
    reserved = resolve_windows(func)
    buffers: list[Buffer] = []
    for space in dict.fromkeys(iv.space for iv in intervals):
        members = [iv for iv in intervals if iv.space is space]
        capacity = backend.capacity(space) if backend is not None else 0
        start = reserved.end if space is reserved.space else 0
        buffers.extend(pack_space(space, members, rules, capacity, start))
    func = commit(func, moves(buffers))
    func = fixups.align_loop_carries(func)
    body = coalesce_acc_if_phis(func.body, backend, MemoryReuse.name)
    if body is not func.body:
        func = func.with_fields(body=body)  # type: ignore[assignment]
    func = fixups.fix_yields(func)
    func = fixups.retype_copies(func)
    func = fixups.drop_unused_allocs(func)
    return fixups.strip_pipeline_membership(func)


def reject_shared_declared_slots(life: Lifetimes) -> None:
    """Two tiles bound on their own (not one computed from the other's buffer) to the same constant slot of a
    declared allocation must not be live at the same time."""
    bound: dict[tuple[int, Any], list[int]] = {}
    for vid in life.order:
        m = on_chip_memref(life.var[vid])
        assert m is not None
        if m.slots is None and not m.is_pinned:
            continue
        if m.slot is not None and m.static_offset is None:
            continue  # a runtime slot index: not checked
        bound.setdefault((id(m.base), m.static_offset), []).append(vid)
    for vids in bound.values():
        for i, a in enumerate(vids):
            for b in vids[i + 1:]:
                if overlap(life.interval(a), life.interval(b)) and not _reads_base(life, b, a):
                    _raise_shared_slot(life, a, b)


def _reads_base(life: Lifetimes, later: int, earlier: int) -> bool:
    """`later` is computed from a tile on `earlier`'s allocation (a view, an in-place result, an alias)."""
    base = on_chip_memref(life.var[earlier]).base  # type: ignore[union-attr]
    value = life.stmt[later].value
    operands = getattr(value, "args", None) or ((value,) if hasattr(value, "type") else ())
    return any(getattr(getattr(a, "type", None), "memref", None) is not None and a.type.memref.base is base
               for a in operands)


def _raise_shared_slot(life: Lifetimes, a: int, b: int) -> None:
    va, vb = life.var[a], life.var[b]
    m = on_chip_memref(va)
    assert m is not None
    (da, la), (db, lb) = life.interval(a), life.interval(b)
    raise UserError(f"Tiles '{va.name_hint}' and '{vb.name_hint}' are both bound to the same slot of the declared "
                    f"allocation '{m.name_hint}' but are live at the same time ({va.name_hint}: [{da}, {la}], "
                    f"{vb.name_hint}: [{db}, {lb}]). Sharing one slot would overwrite data the other still needs: "
                    f"bind one of them to another slot (pl.MemRef(slots=N)) or another declaration", vb.span)




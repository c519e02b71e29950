"""AllocateMemoryAddr under the DSA_RP planner (docs/passes/allocate_memory_addr.md, DSA_RP).

Per kernel function, after the reserve buffers are resolved: one buffer per allocation (buffers.py), hard
separations (MemoryReuse's sharing rules: overlapping lifetimes, no-alias operands, the split-AIV hazard,
requested pipeline stages at their full depth; declared allocations and carry-only bases share with nobody),
unit penalties for cross-pipe reuse (penalties.py), and the greedy solver per space from the reserved windows'
end within the backend's capacity (solver.py). When a space does not fit and pipeline stages separate some of its
buffers, the stage separations are relaxed and the space is solved again; a pair of stage-separated buffers
that then shares bytes gets the perf hint PH-DSA-001. A space that still does not fit is the located ValueError.
"""

from __future__ import annotations

from typing import Any

from pypto_core.analysis.memory import align
from pypto_core.errors import UserError
from pypto_core.ir import function as F
from pypto_core.ir.enums import MemorySpace
from pypto_core.passes.perf_hints import perf_hint
from pypto_plugins.pass_memory.dsa_rp.buffers import Buffer, FunctionBuffers, function_buffers
from pypto_plugins.pass_memory.dsa_rp.penalties import SoftEdge, reuse_cost, soft_edges
from pypto_plugins.pass_memory.dsa_rp.pipes import BufferPipes, buffer_pipes
from pypto_plugins.pass_memory.dsa_rp.solver import SpaceSolution, place
from pypto_plugins.pass_memory.memrefs import memref_key
from pypto_plugins.pass_memory.reserve_buffers import cross_core_ring_note
from pypto_plugins.pass_memory.reuse.sharing import SharingRules
from pypto_plugins.pass_memory.sequential_placement import PlacedBase, Placement, SpacePlan, moved_memref

PASS = "AllocateMemoryAddr"


class DsaProblem:
    """One function's buffers, their pipes and the sharing rules, with the stage separations strict or relaxed."""

    def __init__(self, func: F.Function, backend: Any, hazard: bool) -> None:
        self.func = func
        self.fb: FunctionBuffers = function_buffers(func)
        self.pipes: dict[int, BufferPipes] = buffer_pipes(func)
        self.rules = SharingRules(func, self.fb.life, self.fb.intervals, backend, hazard)
        stages: dict[int, set[int]] = {}
        for vid in self.fb.life.order:
            for group, stage in self.rules.stages[vid]:
                stages.setdefault(group, set()).add(stage)
        self.rules.depths.ordinals = {g: {s: i for i, s in enumerate(sorted(ss))} for g, ss in stages.items()}
        self.requested = {g: len(ss) for g, ss in stages.items()}
        self.relaxed = False
        self._cache: dict[tuple[int, int, bool], bool] = {}

    def set_relaxed(self, relaxed: bool) -> None:
        """Strict: every requested stage apart; relaxed: no stage separation."""
        self.relaxed = relaxed
        self.rules.depths.depth = {g: 1 for g in self.requested} if relaxed else dict(self.requested)

    def may_share(self, a: Buffer, b: Buffer) -> bool:
        if a.fixed or b.fixed:
            return False
        key = (min(a.index, b.index), max(a.index, b.index), self.relaxed)
        hit = self._cache.get(key)
        if hit is None:
            assert a.interval is not None and b.interval is not None
            hit = self._cache[key] = self.rules.can_share(a.interval, b.interval)
        return hit

    def cost(self, a: Buffer, b: Buffer) -> int:
        earlier, later = sorted((a, b), key=lambda x: (x.start, x.index))
        return reuse_cost(self.pipes.get(id(earlier.base)), self.pipes.get(id(later.base)))

    def soft_edges(self) -> list[SoftEdge]:
        self.set_relaxed(False)
        return soft_edges(self.fb.buffers, self.may_share, self.pipes)

    def stage_separated(self, a: Buffer, b: Buffer) -> tuple[int, int, int] | None:
        """(group, stage of a, stage of b) when the requested stages keep a and b apart."""
        if a.interval is None or b.interval is None:
            return None
        for x in a.interval.vids:
            for y in b.interval.vids:
                for gx, sx in self.rules.stages[x]:
                    for gy, sy in self.rules.stages[y]:
                        if gx == gy and sx != sy:
                            return gx, sx, sy
        return None


def place_dsa_rp(func: F.Function, backend: Any, hazard: bool, reserved: Any) -> Placement:
    problem = DsaProblem(func, backend, hazard)
    by_space: dict[MemorySpace, list[Buffer]] = {}
    for buf in problem.fb.buffers:
        by_space.setdefault(buf.space, []).append(buf)
    placement = Placement()
    for space, buffers in by_space.items():
        start = reserved.end if space is reserved.space else 0
        capacity = backend.capacity(space) if backend is not None else 0
        problem.set_relaxed(False)
        solution = place(buffers, start, capacity, problem.may_share, problem.cost)
        if not solution.ok and _has_stage_separation(problem, buffers):
            problem.set_relaxed(True)
            solution = place(buffers, start, capacity, problem.may_share, problem.cost)
            if solution.ok:
                _hint_relaxed_pairs(problem, buffers, solution, space, capacity)
        if not solution.ok:
            assert solution.unplaced is not None
            raise _no_placement(func, space, solution.unplaced, capacity, backend, reserved)
        placement.spaces[space] = _record(problem, space, buffers, solution, start, placement)
    problem.set_relaxed(False)
    return placement


def _has_stage_separation(problem: DsaProblem, buffers: list[Buffer]) -> bool:
    return any(problem.stage_separated(a, b) is not None for i, a in enumerate(buffers) for b in buffers[i + 1:])


def _hint_relaxed_pairs(problem: DsaProblem, buffers: list[Buffer], solution: SpaceSolution, space: MemorySpace,
                        capacity: int) -> None:
    at = solution.addresses
    for i, a in enumerate(buffers):
        for b in buffers[i + 1:]:
            overlap = at[a.index] < at[b.index] + b.size and at[b.index] < at[a.index] + a.size
            apart = problem.stage_separated(a, b)
            if overlap and apart is not None:
                group, sa, sb = apart
                perf_hint("PH-DSA-001", PASS,
                          f"DSA-RP: the stages of pipeline group {group} in {space.name} do not fit {capacity} B "
                          f"side by side, so '{a.name}' (stage {sa}) and '{b.name}' (stage {sb}) share bytes and "
                          f"those stages cannot overlap in time — shrink the per-stage tiles or reduce the "
                          f"pipeline depth", b.first_var.span)


def _record(problem: DsaProblem, space: MemorySpace, buffers: list[Buffer], solution: SpaceSolution, start: int,
            placement: Placement) -> SpacePlan:
    plan = SpacePlan(space, start, end=start)
    for buf in sorted(buffers, key=lambda b: (solution.addresses[b.index], b.index)):
        address = solution.addresses[buf.index]
        plan.bases.append(PlacedBase(buf.base.name_hint, address, buf.size, buf.first_var))
        plan.end = max(plan.end, align(address + buf.size))
        for m, _ in problem.fb.members[id(buf.base)]:
            placement.memrefs[memref_key(m)] = moved_memref(m, address, buf.pinned)
    return plan


def _no_placement(func: F.Function, space: MemorySpace, buf: Buffer, capacity: int, backend: Any,
                  reserved: Any) -> UserError:
    text = (f"DSA-RP could not find a placement for '{func.name}' within the on-chip memory capacities: canonical "
            f"greedy found no capacity-fitting placement: '{buf.name}' ({buf.size} bytes of {space.name}) fits "
            f"nowhere in the {capacity} bytes backend {getattr(backend, 'name', backend)} provides beside the "
            f"tiles live with it")
    if space is reserved.space and reserved.end > 0:
        text += (f". The first {reserved.end} bytes of that space are reserved by system.reserve_buffer, so tiles "
                 f"are allocated above them") + cross_core_ring_note(func, reserved)
    text += (f". Use smaller tiles (split the work into more, smaller tiles), or keep fewer tiles live at once in "
             f"{space.name}")
    return UserError(text, buf.first_var.span)


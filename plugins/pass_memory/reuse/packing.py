"""First-fit packing of intervals into buffers, per memory space, with the capacity fit
(docs/passes/memory_reuse.md, packing and capacity fit).

Intervals are taken largest first (then earliest); each joins the first buffer with whose every member it
may share (sharing.py), else opens a new one; its first member represents the buffer. An interval on a
declared allocation opens its own buffer and nobody joins it.

With a known capacity C, each pipeline group g starts at depth F_g = min(#stages, C // largest tile) (>= 1).
While the packed footprint (buffers placed one after another, 32-byte aligned, above the reserved windows)
exceeds C, the group with the largest aligned slot (ties: lowest id) loses one depth and everything is packed
again. When no depth is left to lower, the legacy stage rule packs once more and a warning says the space could
not be fitted (MemoryReuse never fails on overflow: AllocateMemoryAddr does).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

from pypto_core.analysis.memory import align
from pypto_core.ir.enums import MemorySpace
from pypto_core.passes.perf_hints import perf_hint
from pypto_plugins.pass_memory.reuse.intervals import Interval
from pypto_plugins.pass_memory.reuse.sharing import SharingRules

_MAX_REFITS = 256


class MemoryReuseWarning(UserWarning):
    """A MemoryReuse diagnostic of severity Warning (rule MemoryReuse)."""


@dataclass
class Buffer:
    members: list[Interval] = field(default_factory=list)
    fixed: bool = False  # a declared allocation's own buffer

    @property
    def size(self) -> int:
        return max(m.size for m in self.members)


def pack(intervals: list[Interval], rules: SharingRules) -> list[Buffer]:
    buffers: list[Buffer] = []
    for iv in sorted(intervals, key=lambda iv: (-iv.size, iv.start)):
        if iv.pinned:
            buffers.append(Buffer([iv], fixed=True))
            continue
        for buf in buffers:
            if not buf.fixed and all(rules.can_share(iv, m) for m in buf.members):
                buf.members.append(iv)
                break
        else:
            buffers.append(Buffer([iv]))
    return buffers


def footprint(buffers: list[Buffer], start: int) -> int:
    end = start
    for buf in buffers:
        end = align(end + buf.size)
    return end


def pack_space(space: MemorySpace, intervals: list[Interval], rules: SharingRules, capacity: int,
               reserved_end: int) -> list[Buffer]:
    """The buffers of one space, fitted to `capacity` when it is known (0: unknown)."""
    groups = rules.pipeline_groups(space)
    if not capacity:
        rules.depths.depth = None
        return pack(intervals, rules)
    rules.depths.ordinals = {g: {s: i for i, s in enumerate(stages)} for g, (stages, _) in groups.items()}
    requested = {g: len(stages) for g, (stages, _) in groups.items()}
    depth = {g: max(1, min(len(stages), capacity // max(largest, 1))) for g, (stages, largest) in groups.items()}
    for _ in range(_MAX_REFITS):
        rules.depths.depth = depth
        buffers = pack(intervals, rules)
        if footprint(buffers, reserved_end) <= capacity:
            _hint_reduced_depths(space, groups, requested, depth, capacity)
            return buffers
        lowerable = [g for g in depth if depth[g] > 1]
        if not lowerable:
            break
        victim = min(lowerable, key=lambda g: (-align(groups[g][1]), g))
        depth = {**depth, victim: depth[victim] - 1}
    rules.depths.depth = None
    buffers = pack(intervals, rules)
    if all(buf.size <= capacity for buf in buffers):
        still = footprint(buffers, reserved_end) > capacity
        _warn(f"capacity-gated reuse could not fit memory space {space.name} at any double-buffering depth; fell "
              f"back to the legacy packing" + (" (which also overflows — reduce tile size or stage count)."
                                               if still else "."), MemoryReuseWarning)
    return buffers


def _hint_reduced_depths(space: MemorySpace, groups: dict[int, tuple[list[int], int]], requested: dict[int, int],
                         depth: dict[int, int], capacity: int) -> None:
    for g, want in requested.items():
        got = depth.get(g, want)
        if got < want:
            per_stage = capacity // want
            perf_hint("PH-MR-001", "MemoryReuse",
                      f"software pipelining requested depth {want} for pipeline group {g} in {space.name}, but only "
                      f"{got} of {want} buffers fit ({groups[g][1]} B per stage, {capacity} B capacity) — shrink "
                      f"the per-stage tile to <= {per_stage} B, or reduce the pipeline depth")


def _warn(message: str, category: type[Warning]) -> None:
    warnings.warn(f"MemoryReuse: {message}", category, stacklevel=3)


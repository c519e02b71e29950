"""The DSA_RP planner's buffers (docs/passes/allocate_memory_addr.md, DSA_RP): one per allocation (base Ptr),
with the lifetime MemoryReuse's analysis gives its tiles (reuse/lifetimes.py, reuse/intervals.py), its bytes
(the furthest reach of its MemRefs, a declared allocation's whole size) and its memory space.

A base that only parameters or carries use (no assignment puts a tile on it) has no interval: it is `fixed`,
live throughout, and shares bytes with nobody; so is a declared (pinned) allocation.
"""

from __future__ import annotations

from dataclasses import dataclass

from pypto_core.errors import InternalError
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir.enums import MemorySpace
from pypto_core.ir.types import MemRef
from pypto_plugins.pass_memory.memrefs import allocations, on_chip_memref, tile_vars
from pypto_plugins.pass_memory.reuse.intervals import Interval, build_intervals
from pypto_plugins.pass_memory.reuse.lifetimes import Lifetimes, analyze


@dataclass
class Buffer:
    index: int  # position in definition order over the whole function (the recognizer's interval number)
    base: E.Var
    space: MemorySpace
    size: int
    name: str  # the first tile put on it
    first_var: E.Var
    interval: Interval | None  # None: a base no assignment defines a tile on
    pinned: bool

    @property
    def fixed(self) -> bool:
        """Shares its bytes with no other buffer."""
        return self.pinned or self.interval is None

    @property
    def start(self) -> int:
        return self.interval.start if self.interval is not None else -1


@dataclass
class FunctionBuffers:
    life: Lifetimes
    intervals: list[Interval]
    buffers: list[Buffer]
    members: dict[int, list[tuple[MemRef, E.Var]]]  # id(base) -> its MemRefs and a variable bearing each


def function_buffers(func: F.Function) -> FunctionBuffers:
    life = analyze(func)
    allocs = allocations(func)
    intervals = build_intervals(life, allocs)
    members: dict[int, list[tuple[MemRef, E.Var]]] = {}
    spaces: dict[int, MemorySpace] = {}
    for var in tile_vars(func):
        m = on_chip_memref(var)
        assert m is not None
        if m.size <= 0:
            raise InternalError(f"AllocateMemoryAddr: encountered zero-sized MemRef on '{var.name_hint}' "
                                f"(allocation '{m.name_hint}') in function '{func.name}'")
        members.setdefault(id(m.base), []).append((m, var))
        spaces.setdefault(id(m.base), var.type.memory_space)  # type: ignore[union-attr]
    by_base = {id(iv.base): iv for iv in intervals}
    buffers: list[Buffer] = []
    for iv in intervals:
        first = life.var[iv.vids[0]]
        buffers.append(Buffer(len(buffers), iv.base, iv.space, _size(members[id(iv.base)], allocs.get(id(iv.base))),
                              first.name_hint, first, iv, iv.pinned))
    for key, ms in members.items():  # bases only parameters or carries use
        if key in by_base:
            continue
        m, var = ms[0]
        alloc = allocs.get(key)
        buffers.append(Buffer(len(buffers), m.base, spaces[key], _size(ms, alloc), var.name_hint, var, None,
                              (alloc is not None and alloc.pinned) or m.is_pinned or m.slot is not None))
    return FunctionBuffers(life, intervals, buffers, members)


def _size(members: list[tuple[MemRef, E.Var]], alloc: object) -> int:
    """The furthest constant reach of the base's MemRefs, raised to a declared allocation's size."""
    reach = 0
    for m, _ in members:
        offset = m.static_offset
        reach = max(reach, m.size if offset is None else offset + m.size)
    if alloc is not None and getattr(alloc, "pinned", False):
        reach = max(reach, alloc.size)  # type: ignore[attr-defined]
    return reach

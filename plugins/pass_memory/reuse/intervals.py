"""Intervals: the tracked tiles of one allocation taken together (docs/passes/memory_reuse.md, intervals).

Tiles on the same MemRef base (views, in-place results, aliases) form one interval: def = the earliest def,
last = the latest use, size = the MemRef size of its first-defined tile, space = that tile's. An interval on a
declared (pinned) allocation keeps its own buffer.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pypto_core.ir import expr as E
from pypto_core.ir.enums import MemorySpace
from pypto_core.ir.types import MemRef
from pypto_plugins.pass_memory.memrefs import Allocation, on_chip_memref
from pypto_plugins.pass_memory.reuse.lifetimes import Lifetimes


@dataclass
class Interval:
    base: E.Var
    space: MemorySpace
    size: int
    primary: MemRef  # the first-defined tile's MemRef: what another interval joining its buffer takes
    pinned: bool
    vids: list[int] = field(default_factory=list)
    start: int = 0
    end: int = 0

    @property
    def name(self) -> str:
        return self.base.name_hint


def build_intervals(life: Lifetimes, allocs: dict[int, Allocation]) -> list[Interval]:
    """One interval per base, in order of its first def."""
    by_base: dict[int, Interval] = {}
    for vid in life.order:
        var = life.var[vid]
        m = on_chip_memref(var)
        assert m is not None
        iv = by_base.get(id(m.base))
        if iv is None:
            alloc = allocs.get(id(m.base))
            pinned = (alloc is not None and alloc.pinned) or m.is_pinned or m.slot is not None
            iv = by_base[id(m.base)] = Interval(m.base, var.type.memory_space, m.size, m,  # type: ignore[union-attr]
                                                pinned, start=life.defs[vid], end=life.last[vid])
        iv.vids.append(vid)
        iv.start = min(iv.start, life.defs[vid])
        iv.end = max(iv.end, life.last[vid])
    return list(by_base.values())


def overlap(a: tuple[int, int], b: tuple[int, int]) -> bool:
    """Two [def, last] ranges overlap unless one ends where (or before) the other begins: a tile read last by
    the statement that defines another may share its buffer."""
    return not (a[1] <= b[0] or b[1] <= a[0])

"""How many bytes of each on-chip space each kernel of a placed program uses (docs/memory_planning.md, the memory
table): what `pypto run` prints under its comparison and `pypto trace` draws as a bar per space.

A kernel counts once it carries addresses: it has tiles with on-chip MemRefs, every offset is a constant and
no space is still in InitMemRef's unplaced form (two or more allocations each starting at offset 0). Its use of
a space is the high-water mark (the largest `offset + size`) against `backend.capacity(space)` (0: unbounded).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pypto_core.analysis.walk import statements
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import MemorySpace
from pypto_core.ir.types import TileType


@dataclass(frozen=True)
class SpaceUse:
    kernel: str
    space: MemorySpace
    used: int  # bytes: the high-water mark
    capacity: int  # bytes; 0 when the backend states none

    @property
    def fraction(self) -> float | None:
        return self.used / self.capacity if self.capacity else None

    @property
    def fits(self) -> bool:
        return not self.capacity or self.used <= self.capacity


def memory_use(program: F.Program, backend: Any) -> list[SpaceUse]:
    """One row per (kernel carrying addresses, on-chip space it uses), in program and space order."""
    rows: list[SpaceUse] = []
    for func in program.functions.values():
        high = _placed_high_water(func)
        for space, used in high.items():
            capacity = int(backend.capacity(space)) if backend is not None else 0
            rows.append(SpaceUse(func.name, space, used, capacity))
    return rows


def _placed_high_water(func: F.Function) -> dict[MemorySpace, int]:
    memrefs = []
    bound = list(func.params)
    for stmt in statements(func.body):
        if isinstance(stmt, S.AssignStmt):
            bound.append(stmt.var)
        for name in ("iter_args", "return_vars"):
            bound.extend(getattr(stmt, name, ()) or ())
    for var in bound:
        t = var.type
        if isinstance(t, TileType) and t.memref is not None and t.memory_space not in (None, MemorySpace.DDR):
            memrefs.append((t.memory_space, t.memref))
    if not memrefs or any(m.static_offset is None and m.slot is None for _, m in memrefs):
        return {}
    lowest: dict[MemorySpace, dict[int, int]] = {}
    high: dict[MemorySpace, int] = {}
    for space, m in memrefs:
        offset = m.static_offset
        if offset is None:  # a runtime slot: the declaration's slots end at the largest constant slot's end
            continue
        per_base = lowest.setdefault(space, {})
        per_base[id(m.base)] = min(per_base.get(id(m.base), offset), offset)
        high[space] = max(high.get(space, 0), offset + m.size)
    if any(len(bases) > 1 and all(v == 0 for v in bases.values()) for bases in lowest.values()):
        return {}  # not placed yet
    return {space: high[space] for space in sorted(high, key=lambda s: s.value)}

"""The PYPTO planner's sequential allocator (docs/passes/allocate_memory_addr.md, order and place).

Per memory space, from the end of the reserved windows (else 0): the space's MemRefs sorted by their base's
name *as strings* (`mem_vec_10` < `mem_vec_2` < `ping`; ties keep program order), grouped by base in the
order of each base's first MemRef. A base takes `align32(cursor)` .. its size: the largest member (its
furthest constant reach), raised to its allocation's size for a declared (pinned) base so every slot fits.
Each member keeps its offset inside the base: a constant offset becomes `base address + offset` (INT64); a
runtime offset becomes `base address + offset` on a pinned base (a runtime slot index) and the base address
otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pypto_core.analysis.memory import align
from pypto_core.errors import InternalError
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import MemorySpace
from pypto_core.ir.types import MemRef
from pypto_plugins.pass_memory.memrefs import Allocation, memref_key, on_chip_memref, tile_vars


@dataclass
class PlacedBase:
    """One allocation as placed: its name, address, bytes and the variable that first uses it."""

    name: str
    address: int
    size: int
    first_user: E.Var


@dataclass
class SpacePlan:
    """The placement of one memory space of one function."""

    space: MemorySpace
    start: int  # the reserved windows' end
    bases: list[PlacedBase] = field(default_factory=list)
    end: int = 0  # the aligned end of the last base: the bytes the function needs

    def first_over(self, limit: int) -> PlacedBase | None:
        """The first base whose bytes reach beyond `limit`."""
        return next((b for b in self.bases if b.address + b.size > limit), None)


@dataclass
class Placement:
    """New MemRefs by the old ones' keys, and the plan of every space."""

    memrefs: dict[tuple, MemRef] = field(default_factory=dict)
    spaces: dict[MemorySpace, SpacePlan] = field(default_factory=dict)


def place_sequentially(func: F.Function, allocs: dict[int, Allocation],
                       reserved_end: dict[MemorySpace, int]) -> Placement:
    """Addresses for every on-chip MemRef of `func`."""
    by_space: dict[MemorySpace, list[tuple[MemRef, E.Var]]] = {}
    seen: set[tuple] = set()
    for var in tile_vars(func):
        m = on_chip_memref(var)
        assert m is not None
        key = memref_key(m)
        if key in seen:
            continue
        seen.add(key)
        by_space.setdefault(var.type.memory_space, []).append((m, var))  # type: ignore[union-attr]
    placement = Placement()
    for space, members in by_space.items():
        plan = SpacePlan(space, reserved_end.get(space, 0))
        placement.spaces[space] = plan
        cursor = plan.start
        for base_members in _bases_in_order(members):
            first, first_var = base_members[0]
            for m, var in base_members:
                if m.size <= 0:
                    raise InternalError(f"AllocateMemoryAddr: encountered zero-sized MemRef on '{var.name_hint}' "
                                        f"(allocation '{m.name_hint}') in function '{func.name}'")
            alloc = allocs.get(id(first.base))
            pinned = is_pinned(base_members, alloc)
            size = max(_reach(m) for m, _ in base_members)
            if pinned and alloc is not None:
                size = max(size, alloc.size)
            address = cursor
            plan.bases.append(PlacedBase(first.name_hint, address, size, first_var))
            cursor = align(cursor + size)
            for m, _ in base_members:
                placement.memrefs[memref_key(m)] = moved_memref(m, address, pinned)
        plan.end = cursor
    return placement


def _bases_in_order(members: list[tuple[MemRef, E.Var]]) -> list[list[tuple[MemRef, E.Var]]]:
    ordered = sorted(members, key=lambda pair: pair[0].name_hint)  # stable: ties keep program order
    groups: dict[int, list[tuple[MemRef, E.Var]]] = {}
    for m, var in ordered:
        groups.setdefault(id(m.base), []).append((m, var))
    return list(groups.values())


def is_pinned(members: list[tuple[MemRef, E.Var]], alloc: Allocation | None) -> bool:
    return (alloc is not None and alloc.pinned) or any(m.is_pinned or m.slot is not None for m, _ in members)


def _reach(m: MemRef) -> int:
    """The bytes of its base a member needs: its size, or its constant offset plus size when larger (a member
    at an offset inside its base, such as a slice view, must not stick out of the base)."""
    offset = m.static_offset
    return m.size if offset is None else max(m.size, offset + m.size)


def moved_memref(m: MemRef, address: int, pinned: bool) -> MemRef:
    """`m` at its offset inside a base placed at `address`."""
    offset = m.static_offset
    if offset is not None:
        new_offset: E.Expr = E.ConstInt(address + offset, DataType.INT64)
    elif pinned:
        new_offset = E.Add(E.ConstInt(address, DataType.INDEX), m.byte_offset, DataType.INDEX)
    else:
        new_offset = E.ConstInt(address, DataType.INT64)
    return MemRef(m.base, new_offset, m.size, is_pinned=m.is_pinned, slots=m.slots, slot=m.slot)

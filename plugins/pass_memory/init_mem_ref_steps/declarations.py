"""Declared allocations: `ping = pl.MemRef()` / `ring = pl.MemRef(slots=2)` bound in tile annotations
(docs/memory_planning.md, declared allocations; init_mem_ref.md 3.6).

Collected from the parameters and the body before anything is rewritten: a declaration's slot is as large as
the largest tile bound to it, its allocation holds all slots. A bound tile's MemRef is then the slot it names:
offset `k * slot_size` (an INDEX product for a runtime index), size one slot, slots and index kept.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pypto_core.analysis.memory import tile_bytes
from pypto_core.analysis.walk import statements
from pypto_core.errors import UserError
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import scalar_ops
from pypto_core.ir import stmt as S
from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import MemorySpace
from pypto_core.ir.types import MemRef, TileType
from pypto_core.passes.memory_planner import MemoryPlanner


@dataclass
class Declaration:
    base: E.Var
    slots: int
    space: MemorySpace
    slot_size: int = 0
    bound: list[E.Var] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.base.name_hint

    @property
    def total(self) -> int:
        return self.slot_size * self.slots


def is_declared(memref: MemRef | None) -> bool:
    return memref is not None and memref.is_pinned


def _bound_tiles(func: F.Function) -> list[tuple[E.Var, Any]]:
    """(tile, span) for every tile of the function written with a declared allocation, in program order."""
    found: list[tuple[E.Var, Any]] = [(p, p.span) for p in func.params]
    for stmt in statements(func.body):
        if isinstance(stmt, S.AssignStmt):
            found.append((stmt.var, stmt.span))
        for name in ("iter_args", "return_vars"):
            found.extend((v, stmt.span) for v in getattr(stmt, name, ()) or ())
    return [(v, span) for v, span in found
            if isinstance(v.type, TileType) and is_declared(v.type.memref)]


def collect_declarations(func: F.Function, backend: Any, planner: MemoryPlanner) -> dict[int, Declaration]:
    """id(base Ptr) -> its Declaration; the located ValueErrors of init_mem_ref.md §4."""
    decls: dict[int, Declaration] = {}
    for var, span in _bound_tiles(func):
        t = var.type
        memref = t.memref
        space = t.memory_space if t.memory_space is not None else MemorySpace.DDR
        decl = decls.get(id(memref.base))
        if decl is None:
            decl = decls[id(memref.base)] = Declaration(memref.base, memref.slot_count_, space)
            if planner is MemoryPlanner.PTOAS and decl.slots == 1:
                raise UserError(
                    f'A single-slot declared allocation (pl.MemRef("{decl.name}")) is not supported under '
                    f"memory_planner=PTOAS: PTOAS places buffers itself and honours declared rings only. Declare "
                    f"it with two or more slots ({decl.name} = pl.MemRef(slots=2)), or plan memory with "
                    f"memory_planner=PYPTO", span)
        if memref.slot_count_ != decl.slots:
            raise UserError(
                f"References to the declared allocation '{decl.name}' disagree on how many slots it has "
                f"({decl.slots} vs {memref.slot_count_}); every reference must name the same declaration "
                f"(pl.MemRef(\"{decl.name}\", slots={decl.slots}))", span)
        if space is not decl.space:
            raise UserError(
                f"Tiles bound to the declared allocation '{decl.name}' must all live in the same memory space, but "
                f"'{var.name_hint}' is {space.name} while the allocation is already {decl.space.name}. Declare "
                f"another allocation for the {space.name} tiles", span)
        size = tile_bytes(t, backend)
        if size is None:
            raise UserError(
                f"Tile '{var.name_hint}' is bound to the declared allocation '{decl.name}' but has a dynamic shape; "
                f"a declared allocation is sized from the static shapes of the tiles bound to it. Give the tile a "
                f"static shape, or do not bind it to '{decl.name}'", span)
        decl.slot_size = max(decl.slot_size, size)
        decl.bound.append(var)
    return decls


def slot_memref(decl: Declaration, declared: MemRef) -> MemRef:
    """The MemRef of a tile bound to `declared` (`ring[k]`, `ping`): slot k of the declaration's allocation."""
    index = declared.slot
    if index is None:
        return MemRef(decl.base, E.ConstInt(0, DataType.INT64), decl.slot_size)
    if isinstance(index, E.ConstInt):
        offset: E.Expr = E.ConstInt(index.value * decl.slot_size, DataType.INT64)
    else:
        offset = scalar_ops.mul(index, E.ConstInt(decl.slot_size, DataType.INDEX))
    return MemRef(decl.base, offset, decl.slot_size, slots=decl.slots, slot=index)

"""Putting the packed buffers into the IR (docs/passes/memory_reuse.md, commit).

Every tile of a non-representative interval takes the representative's MemRef object; a view keeps its
offset relative to its own interval's first MemRef. Iter_args and loop / if results on a moved base move
with it.
"""

from __future__ import annotations

from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir.dtypes import DataType
from pypto_core.ir.types import MemRef, TileType, Type
from pypto_plugins.pass_memory.memrefs import retype
from pypto_plugins.pass_memory.reuse.intervals import Interval
from pypto_plugins.pass_memory.reuse.packing import Buffer


def moves(buffers: list[Buffer]) -> dict[int, tuple[Interval, Interval]]:
    """id(base) of each joining interval -> (that interval, its buffer's representative)."""
    out: dict[int, tuple[Interval, Interval]] = {}
    for buf in buffers:
        rep = buf.members[0]
        for member in buf.members[1:]:
            out[id(member.base)] = (member, rep)
    return out


def commit(func: F.Function, moved: dict[int, tuple[Interval, Interval]]) -> F.Function:
    if not moved:
        return func

    def new_type(var: E.Var) -> Type | None:
        t = var.type
        if not isinstance(t, TileType) or t.memref is None or id(t.memref.base) not in moved:
            return None
        member, rep = moved[id(t.memref.base)]
        return t.with_fields(memref=relocated(t.memref, member.primary, rep.primary))  # type: ignore[return-value]

    return retype(func, new_type)


def relocated(m: MemRef, primary: MemRef, target: MemRef) -> MemRef:
    """`m` (on `primary`'s base) moved onto `target`'s base: the target object itself for `primary` (and any
    MemRef equal to it), else the same offset relative to the target."""
    same_place = m.static_offset is not None and m.static_offset == primary.static_offset and m.size == primary.size
    if m is primary or same_place:
        return target
    if m.static_offset is not None and primary.static_offset is not None and target.static_offset is not None:
        offset: E.Expr = E.ConstInt(target.static_offset + m.static_offset - primary.static_offset, DataType.INT64)
    else:
        offset = m.byte_offset
    return MemRef(target.base, offset, m.size, is_pinned=m.is_pinned, slots=m.slots, slot=m.slot)

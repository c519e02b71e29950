"""Tiles a program places itself on shared bytes (docs/passes/init_mem_ref.md, placed tiles).

InitMemRef gives every tile a MemRef of its own choosing: a MemRef the program already wrote on a tile (a compiler
MemRef on a `tile.alloc`, as InitMemRef's own output prints) is replaced, PyPTO's rule. That keeps what the program
computes unless the program relies on two tiles sharing bytes: a tile written over bytes of another tile that is
read afterwards (the reference machine runs such a program by address, so the reader sees the new bytes; once
re-planned it would not). Such a program is refused, naming both tiles, instead of compiled into another result.
Declared allocations (`pl.MemRef("buf")`) are kept, so the same sharing written with a declaration compiles.
"""

from __future__ import annotations

from typing import Any

from pypto_core.errors import UserError
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.types import MemRef, TileType
from pypto_core.ir.utils import flatten_to_stmts
from pypto_plugins.pass_memory.init_mem_ref_steps.buffer_facts import view_kind
from pypto_plugins.pass_memory.init_mem_ref_steps.declarations import is_declared
from pypto_plugins.pass_memory.init_mem_ref_steps.liveness import UsePositions


def _placed(var: E.Var) -> tuple[MemRef, int, int] | None:
    """(MemRef, first byte, end byte) of a tile written with a compiler MemRef at a constant offset."""
    t = var.type
    if not isinstance(t, TileType) or t.memref is None or is_declared(t.memref):
        return None
    m = t.memref
    if m.static_offset is None or not m.size:
        return None
    return m, m.static_offset, m.static_offset + int(m.size)


def _definitions(stmt: S.Stmt, loops: tuple[S.Stmt, ...], out: list[tuple[S.AssignStmt, tuple[S.Stmt, ...]]]) -> None:
    for s in flatten_to_stmts(stmt):
        if isinstance(s, S.AssignStmt):
            out.append((s, loops))
        elif isinstance(s, (S.ForStmt, S.WhileStmt)):
            _definitions(s.body, (*loops, s), out)
        elif isinstance(s, S.IfStmt):
            _definitions(s.then_body, loops, out)
            if s.else_body is not None:
                _definitions(s.else_body, loops, out)
        elif isinstance(s, S.ScopeStmt):
            _definitions(s.body, loops, out)


def reject_relied_on_sharing(func: F.Function, pass_name: str) -> None:
    """A located error when a tile the program placed is overwritten on its bytes by another while still read."""
    defs: list[tuple[S.AssignStmt, tuple[S.Stmt, ...]]] = []
    _definitions(func.body, (), defs)
    placed = [(s, loops, found) for s, loops in defs if (found := _placed(s.var)) is not None]
    if len(placed) < 2:
        return
    uses = UsePositions(func)
    earlier: dict[int, list[tuple[E.Var, int, int]]] = {}  # base -> tiles placed on it so far
    for stmt, loops, (memref, lo, hi) in placed:
        writes = not view_kind(stmt.value)  # a view shares its source's bytes without writing them
        for other, o_lo, o_hi in earlier.get(id(memref.base), []) if writes else ():
            if lo < o_hi and o_lo < hi and uses.live_after(id(other), uses.position(stmt), list(loops)):
                _raise(pass_name, func, other, stmt, memref)
        earlier.setdefault(id(memref.base), []).append((stmt.var, lo, hi))


def _raise(pass_name: str, func: F.Function, other: E.Var, stmt: S.AssignStmt, memref: MemRef) -> Any:
    base = getattr(memref.base, "name_hint", "?")
    raise UserError(f"{pass_name}: in function '{func.name}', tile '{stmt.var.name_hint}' is placed on bytes of "
                    f"'{base}' that tile '{other.name_hint}' holds, and '{other.name_hint}' is read after "
                    f"'{stmt.var.name_hint}' is written there: the program relies on the two sharing memory, which "
                    f"{pass_name}'s own placement would not keep. Give '{stmt.var.name_hint}' bytes of its own, or "
                    f"declare the allocation (pl.MemRef(...)) to place the tiles yourself", stmt.span)

"""What the memory passes read and rewrite about MemRefs (docs/memory_planning.md, MemRefs and `pl.Ptr`).

* `tile_vars(func)`: every variable a function binds that is a tile carrying an on-chip MemRef, parameters
  first, then in program order (assignment targets, iter_args, loop / if return variables).
* `allocations(func)`: the allocation statements (`base: pl.Ptr = pl.tile.alloc(space, size[, pinned=True])`)
  by their base Ptr: each one's space, size and whether it is a declared (pinned) allocation. An allocation
  is recognised by its variable's type (`pl.Ptr`), not by the op's name.
* `retype(func, new_type)`: the function with every variable `new_type` gives a new type replaced, at its
  definition and at every use (iter_args keep their init values, remapped too).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pypto_core.analysis.walk import statements
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import MemorySpace
from pypto_core.ir.types import MemRef, PtrType, TileType, Type
from pypto_core.ir.utils import Substituter


def on_chip_memref(var: E.Var) -> MemRef | None:
    """The MemRef of a tile variable living in an on-chip space (None for tensors, DDR and MemRef-less tiles)."""
    t = var.type
    if isinstance(t, TileType) and t.memref is not None and t.memory_space not in (None, MemorySpace.DDR):
        return t.memref
    return None


def bound_vars(func: F.Function) -> list[E.Var]:
    """Every variable the function binds: parameters, then definitions in program order."""
    out: list[E.Var] = list(func.params)
    for stmt in statements(func.body):
        if isinstance(stmt, S.AssignStmt):
            out.append(stmt.var)
        elif isinstance(stmt, S.ForStmt):
            out.extend(stmt.iter_args)
            out.extend(stmt.return_vars)
        elif isinstance(stmt, S.WhileStmt):
            out.extend(stmt.iter_args)
            out.extend(stmt.return_vars)
        elif isinstance(stmt, S.IfStmt):
            out.extend(stmt.return_vars)
    return out


def tile_vars(func: F.Function) -> list[E.Var]:
    """The bound tile variables that carry an on-chip MemRef, in binding order (each once)."""
    seen: set[int] = set()
    out = []
    for var in bound_vars(func):
        if id(var) not in seen and on_chip_memref(var) is not None:
            seen.add(id(var))
            out.append(var)
    return out


def memref_key(m: MemRef) -> tuple[Any, ...]:
    """Identity of one MemRef: its base object, offset (the value when constant), size and slot."""
    offset = m.static_offset
    slot = m.slot.value if isinstance(m.slot, E.ConstInt) else id(m.slot) if m.slot is not None else None
    return (id(m.base), offset if offset is not None else ("expr", id(m.byte_offset)), m.size, m.slots, slot)


@dataclass(frozen=True)
class Allocation:
    """One allocation statement: its base Ptr, space, size in bytes and whether it is a declaration."""

    base: E.Var
    space: MemorySpace | None
    size: int
    pinned: bool
    stmt: S.AssignStmt


def allocations(func: F.Function) -> dict[int, Allocation]:
    """id(base Ptr) -> the allocation statement that defines it."""
    out: dict[int, Allocation] = {}
    for stmt in statements(func.body):
        if not (isinstance(stmt, S.AssignStmt) and isinstance(stmt.var.type, PtrType)
                and isinstance(stmt.value, E.Call)):
            continue
        args = stmt.value.args
        space = MemorySpace(args[0].value) if args and isinstance(args[0], E.ConstInt) else None
        size = args[1].value if len(args) > 1 and isinstance(args[1], E.ConstInt) else 0
        out[id(stmt.var)] = Allocation(stmt.var, space, size, bool(stmt.value.kwargs.get("pinned", False)), stmt)
    return out


def retype(func: F.Function, new_type: Callable[[E.Var], Type | None]) -> F.Function:
    """`func` with each variable for which `new_type` returns a type rebuilt with it (same name, span)."""
    mapping = VarMap()
    for var in bound_vars(func):
        if mapping.get(var) is not None:
            continue
        t = new_type(var)
        if isinstance(var, E.IterArg):
            init = mapping.substitute(var.initValue)
            if t is None and init is var.initValue:
                continue
            mapping.put(var, var.with_fields(type=t if t is not None else var.type, initValue=init))
        elif t is not None:
            mapping.put(var, var.with_fields(type=t))
    if not mapping:
        return func
    return mapping.apply(func)


class VarMap:
    """Variables replaced by identity (Exprs compare structurally, so they are keyed by id)."""

    def __init__(self) -> None:
        self._pairs: dict[int, tuple[E.Var, E.Expr]] = {}

    def __bool__(self) -> bool:
        return bool(self._pairs)

    def put(self, old: E.Var, new: E.Expr) -> None:
        self._pairs[id(old)] = (old, new)

    def get(self, old: E.Var) -> E.Expr | None:
        hit = self._pairs.get(id(old))
        return hit[1] if hit is not None else None

    def substitute(self, expr: E.Expr) -> E.Expr:
        return _ById(self._pairs).visit_expr(expr) if self._pairs else expr

    def apply(self, func: F.Function) -> F.Function:
        params = tuple(self.get(p) or p for p in func.params)
        body = _ById(self._pairs).visit_stmt(func.body)
        return func.with_fields(params=params, body=body)  # type: ignore[return-value]


class _ById(Substituter):
    """The substituter, given its id-keyed table directly."""

    def __init__(self, pairs: dict[int, tuple[E.Var, E.Expr]]) -> None:
        self.mapping = {key: new for key, (_, new) in pairs.items()}


def with_memref(t: TileType, memref: MemRef) -> TileType:
    return t.with_fields(memref=memref)  # type: ignore[return-value]

"""The windows `system.reserve_buffer` keeps at the bottom of a kernel's memory space
(docs/passes/allocate_memory_addr.md, reserve buffers first).

The op is recognised by its registry fact (`OpTraits.reserves_on_chip_window`), not its name. Its space is
Mat in an AIC function and Vec in an AIV or InCore one. Windows are taken in program order: an explicit
`base` >= 0 stays, `base=-1` (pl.AUTO) gets the running cursor; each window ends at its 32-byte aligned end
and the cursor moves to the largest end so far. Tiles are placed from the largest end (`reserved_end`) up.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pypto_core.analysis.memory import align
from pypto_core.analysis.walk import walk
from pypto_core.errors import InternalError
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import FunctionType, MemorySpace
from pypto_core.ir.visitor import IRMutator
from pypto_core.ops.opdef import CrossCoreRole
from pypto_core.ops.registry import op_registry, opdef_of

AUTO = -1


def reserves_window(call: E.Call) -> bool:
    opdef = op_registry().find_opdef(call.op.name)
    return opdef is not None and opdef.traits.reserves_on_chip_window


def reserve_space(func: F.Function) -> MemorySpace:
    """The space a function's reserve buffers live in: the cube's Mat, else the vector core's Vec."""
    return MemorySpace.Mat if func.func_type is FunctionType.AIC else MemorySpace.Vec


@dataclass(frozen=True)
class Window:
    name: str
    base: int
    size: int
    call: E.Call

    @property
    def end(self) -> int:
        return align(self.base + self.size)


@dataclass
class ReservedWindows:
    """The resolved windows of one function and the space they sit in."""

    space: MemorySpace
    windows: list[Window] = field(default_factory=list)

    @property
    def end(self) -> int:
        """Where tiles may start: the largest aligned window end (0 without windows)."""
        return max((w.end for w in self.windows), default=0)

    def names(self) -> list[str]:
        return [w.name for w in self.windows]


def reserve_calls(func: F.Function) -> list[E.Call]:
    return [n for n in walk(func.body) if isinstance(n, E.Call) and reserves_window(n)]


def resolve_windows(func: F.Function) -> ReservedWindows:
    """Every reserve buffer of `func` with a concrete base (an InternalError for a non-positive size or two
    overlapping windows)."""
    found = ReservedWindows(reserve_space(func))
    cursor = 0
    for call in reserve_calls(func):
        size = int(call.kwargs.get("size", 0))
        name = str(call.kwargs.get("name", ""))
        if size <= 0:
            raise InternalError(f"AllocateMemoryAddr: system.reserve_buffer '{name}' in function '{func.name}' has "
                                f"size {size}; a reserve buffer needs a positive size")
        base = int(call.kwargs.get("base", AUTO))
        window = Window(name, cursor if base == AUTO else base, size, call)
        for other in found.windows:
            if window.base < other.base + other.size and other.base < window.base + window.size:
                raise InternalError(f"AllocateMemoryAddr: overlapping reserve_buffer ranges in function "
                                    f"'{func.name}': '{other.name}' [{other.base}, {other.base + other.size}) and "
                                    f"'{name}' [{window.base}, {window.base + size})")
        found.windows.append(window)
        cursor = max(cursor, window.end)
    return found


def with_resolved_bases(func: F.Function, reserved: ReservedWindows) -> F.Function:
    """`func` with each reserve buffer call stating its resolved `base`."""
    resolved = {id(w.call): w.base for w in reserved.windows if w.call.kwargs.get("base") != w.base}
    if not resolved:
        return func
    return _SetBase(resolved).visit_function(func)


class _SetBase(IRMutator):
    def __init__(self, bases: dict[int, int]) -> None:
        self.bases = bases

    def visit_call(self, call: E.Call) -> Any:
        base = self.bases.get(id(call))
        new = super().visit_node(call)
        if base is None:
            return new
        return new.with_fields(kwargs={**new.kwargs, "base": base})


def cross_core_ring_note(func: F.Function, reserved: ReservedWindows) -> str:
    """The hint an overflow gets when a window is a cross-core pipe ring: the buffer a reserve call binds is
    handed to another pipe-setup op (its registry `cross_core_role`, aiv_initialize_pipe and the like)."""
    del reserved  # the function's own reserve calls are read: `reserved` may hold them before their bases
    ring_vars = {id(s.var) for s in walk(func.body)
                 if isinstance(s, S.AssignStmt) and isinstance(s.value, E.Call) and reserves_window(s.value)}
    for node in walk(func.body):
        opdef = opdef_of(node) if isinstance(node, E.Call) and not reserves_window(node) else None
        if opdef is None or opdef.cross_core_role is not CrossCoreRole.PIPE_SETUP:
            continue
        if any(isinstance(a, E.Var) and id(a) in ring_vars for a in node.args):  # type: ignore[attr-defined]
            return (" — this is the cross-core pipe ring. Lower its depth with "
                    "optimizations=[pl.cross_core_slot(slot_num=N)] on the enclosing pl.at(...), or shrink the "
                    "tile that crosses the cube/vector boundary")
    return ""
